#include "shim/async_session.h"

#include "core/async_tracker.h"
#include "shim/engine.h"

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
  WCHAR name[64] = {};
  ULONG length = 0;
  if (FAILED(e->info->EventPipeGetProviderInfo(provider, 64, &length, name))) return false;
  constexpr size_t kLength = sizeof tpl_events::kProvider / sizeof tpl_events::kProvider[0];  // with its NUL
  bool same = length == kLength || length == kLength - 1;
  for (size_t i = 0; same && i + 1 < kLength; ++i) same = static_cast<char16_t>(name[i]) == tpl_events::kProvider[i];
  (same ? e->tpl_provider : e->runtime_provider).store(provider, std::memory_order_relaxed);
  return same;
}

}  // namespace clrscope
