#include "shim/async_session.h"

#include "core/async_tracker.h"
#include "shim/engine.h"
#include "shim/provider_name.h"

namespace clrscope {

using namespace clr;

COR_PRF_EVENTPIPE_PROVIDER_CONFIG tpl_provider_config() {
  COR_PRF_EVENTPIPE_PROVIDER_CONFIG c{};
  c.providerName = reinterpret_cast<const WCHAR*>(tpl_events::kProvider);
  c.keywords = tpl_events::kKeywords;
  c.loggingLevel = tpl_events::kInformational;
  c.filterData = nullptr;
  return c;
}

bool is_tpl_provider(Engine* e, EVENTPIPE_PROVIDER provider) {
  if (provider == 0) return false;
  if (provider == e->tpl_provider.load(std::memory_order_relaxed)) return true;
  if (provider == e->runtime_provider.load(std::memory_order_relaxed)) return false;
  const bool same = provider_named(e->info, provider, tpl_events::kProvider);
  (same ? e->tpl_provider : e->runtime_provider).store(provider, std::memory_order_relaxed);
  return same;
}

}  // namespace clrscope
