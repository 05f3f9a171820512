#include "shim/wait_session.h"

#include "core/log.h"
#include "core/runtime_event_payloads.h"
#include "core/wait_event_payloads.h"

namespace clrscope {

using namespace clr;

EVENTPIPE_SESSION start_wait_events(ICorProfilerInfo12* info) {
  static const char16_t kProvider[] = u"Microsoft-Windows-DotNETRuntime";
  COR_PRF_EVENTPIPE_PROVIDER_CONFIG config{};
  config.providerName = reinterpret_cast<const WCHAR*>(kProvider);
  config.keywords = wait_events::kWaitHandleKeyword;
  config.loggingLevel = runtime_events::kVerbose;
  config.filterData = nullptr;
  EVENTPIPE_SESSION session = 0;
  const HRESULT hr = info->EventPipeStartSession(1, &config, 0, &session);
  if (FAILED(hr)) {
    log_line("no WaitHandleWait event session (0x%08x): pool threads' waits come from wall samples only",
             static_cast<unsigned>(hr));
    return 0;
  }
  return session;
}

}  // namespace clrscope
