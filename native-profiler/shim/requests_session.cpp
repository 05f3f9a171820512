#include "shim/requests_session.h"

#include "core/request_payloads.h"
#include "shim/engine.h"

namespace clrscope {

using namespace clr;

COR_PRF_EVENTPIPE_PROVIDER_CONFIG requests_provider_config() {
  COR_PRF_EVENTPIPE_PROVIDER_CONFIG c{};
  c.providerName = reinterpret_cast<const WCHAR*>(request_events::kProvider);
  c.keywords = request_events::kKeywords;
  c.loggingLevel = request_events::kInformational;
  c.filterData = reinterpret_cast<const WCHAR*>(request_events::kFilter);
  return c;
}

bool is_requests_provider(Engine* e, EVENTPIPE_PROVIDER provider) {
  if (provider == 0 || e->requests == nullptr) return false;
  if (provider == e->requests_provider.load(std::memory_order_relaxed)) return true;
  if (e->requests_provider.load(std::memory_order_relaxed) != 0) return false;  // known, and another one
  for (const auto& other : e->not_requests) {
    if (provider == other.load(std::memory_order_relaxed)) return false;
  }
  WCHAR name[64] = {};
  ULONG length = 0;
  if (FAILED(e->info->EventPipeGetProviderInfo(provider, 64, &length, name))) return false;
  constexpr size_t kLength = sizeof request_events::kProvider / sizeof request_events::kProvider[0];  // with its NUL
  bool same = length == kLength || length == kLength - 1;
  for (size_t i = 0; same && i + 1 < kLength; ++i) same = static_cast<char16_t>(name[i]) == request_events::kProvider[i];
  if (same) {
    e->requests_provider.store(provider, std::memory_order_relaxed);
    return true;
  }
  // The session's other providers (the runtime's, TplEventSource, System.Runtime), remembered so
  // their events cost no name lookup before the first request.
  for (auto& other : e->not_requests) {
    uintptr_t empty = 0;
    if (other.compare_exchange_strong(empty, provider, std::memory_order_relaxed)) break;
  }
  return false;
}

}  // namespace clrscope
