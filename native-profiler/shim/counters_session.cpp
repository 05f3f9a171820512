#include "shim/counters_session.h"

#include "core/event_counters.h"
#include "shim/engine.h"
#include "shim/provider_name.h"

namespace clrscope {

using namespace clr;

COR_PRF_EVENTPIPE_PROVIDER_CONFIG counters_provider_config() {
  COR_PRF_EVENTPIPE_PROVIDER_CONFIG c{};
  c.providerName = reinterpret_cast<const WCHAR*>(event_counters::kProvider);
  c.keywords = event_counters::kKeywords;
  c.loggingLevel = event_counters::kInformational;
  c.filterData = reinterpret_cast<const WCHAR*>(event_counters::kFilter);
  return c;
}

bool is_counters_provider(Engine* e, EVENTPIPE_PROVIDER provider) {
  if (provider == 0) return false;
  if (provider == e->counters_provider.load(std::memory_order_relaxed)) return true;
  for (const auto& other : e->other_providers) {
    if (provider == other.load(std::memory_order_relaxed)) return false;
  }
  if (provider_named(e->info, provider, event_counters::kProvider)) {
    e->counters_provider.store(provider, std::memory_order_relaxed);
    return true;
  }
  // The session has at most three other providers (the runtime's, TplEventSource, the
  // DiagnosticSource bridge); a fourth would only cost a name lookup per event.
  for (auto& other : e->other_providers) {
    uintptr_t empty = 0;
    if (other.compare_exchange_strong(empty, provider, std::memory_order_relaxed)) break;
  }
  return false;
}

}  // namespace clrscope
