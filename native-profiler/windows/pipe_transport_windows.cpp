// The stream over a named pipe (\\.\pipe\...), the kind of endpoint Node's net.Server listens
// on when given a path on Windows. Pipes have no non-blocking send: a write is started
// overlapped from a copy we own (the outbox reuses its buffer as soon as send returns), and
// until it completes further sends report kWouldBlock.
#include <cstring>
#include <vector>

#include "core/transport.h"
#include "windows/win_common.h"

namespace clrscope {
namespace {

// Bytes in flight at most, like the socket's send buffer on Linux.
constexpr size_t kStagingBytes = 1u << 20;

class PipeTransport final : public Transport {
 public:
  PipeTransport(HANDLE pipe, HANDLE event) : pipe_(pipe), event_(event), staging_(kStagingBytes) {}

  ~PipeTransport() override {
    if (pending_) {
      // The write still reads staging_ and ov_; it must be over before they go.
      CancelIoEx(pipe_, &ov_);
      DWORD n = 0;
      GetOverlappedResult(pipe_, &ov_, &n, TRUE);
    }
    CloseHandle(pipe_);
    CloseHandle(event_);
  }

  Status send(const uint8_t* data, size_t size, size_t* sent) override {
    *sent = 0;
    if (broken_) return Status::kBroken;
    while (*sent < size) {
      if (pending_) {
        const Status st = finish_pending();
        if (st != Status::kSent) return st;
      }
      const size_t chunk = size - *sent < staging_.size() ? size - *sent : staging_.size();
      std::memcpy(staging_.data(), data + *sent, chunk);
      std::memset(&ov_, 0, sizeof ov_);
      ov_.hEvent = event_;
      DWORD written = 0;
      if (WriteFile(pipe_, staging_.data(), static_cast<DWORD>(chunk), &written, &ov_)) {
        *sent += written;
        if (written < chunk) return Status::kWouldBlock;
        continue;
      }
      if (GetLastError() != ERROR_IO_PENDING) return fail();
      // The bytes are in our copy now: they count as sent, and the next call waits for them.
      pending_ = true;
      in_flight_ = chunk;
      *sent += chunk;
    }
    return Status::kSent;
  }

  bool wait_writable(int timeout_ms) override {
    if (broken_) return false;
    if (!pending_) return true;
    WaitForSingleObject(event_, timeout_ms < 0 ? INFINITE : static_cast<DWORD>(timeout_ms));
    return finish_pending() == Status::kSent;
  }

 private:
  Status finish_pending() {
    DWORD n = 0;
    if (!GetOverlappedResult(pipe_, &ov_, &n, FALSE)) {
      if (GetLastError() == ERROR_IO_INCOMPLETE) return Status::kWouldBlock;
      pending_ = false;
      return fail();
    }
    pending_ = false;
    // A byte-mode pipe write completes whole; anything less would leave a hole in the stream.
    if (n != in_flight_) return fail();
    return Status::kSent;
  }

  Status fail() {
    broken_ = true;
    return Status::kBroken;
  }

  HANDLE pipe_;
  HANDLE event_;
  std::vector<uint8_t> staging_;
  OVERLAPPED ov_{};
  bool pending_ = false;
  size_t in_flight_ = 0;
  bool broken_ = false;
};

}  // namespace

namespace win {

std::unique_ptr<Transport> connect_named_pipe(const std::string& path) {
  std::wstring name = wide_from_utf8(path);
  for (wchar_t& c : name) {
    if (c == L'/') c = L'\\';
  }
  if (name.empty()) return nullptr;
  // SECURITY_IDENTIFICATION: whoever owns the pipe may learn who we are, but cannot act as us.
  const DWORD flags = FILE_FLAG_OVERLAPPED | SECURITY_SQOS_PRESENT | SECURITY_IDENTIFICATION;
  HANDLE pipe = INVALID_HANDLE_VALUE;
  for (int attempt = 0; attempt < 4 && pipe == INVALID_HANDLE_VALUE; ++attempt) {
    // Not inheritable (no security attributes): children of the target must not hold it open.
    pipe = CreateFileW(name.c_str(), GENERIC_WRITE, 0, nullptr, OPEN_EXISTING, flags, nullptr);
    if (pipe != INVALID_HANDLE_VALUE) break;
    // Busy: every instance is taken by processes connecting right now; the server opens a new
    // one as it accepts. Anything else means nobody listens there.
    if (GetLastError() != ERROR_PIPE_BUSY || !WaitNamedPipeW(name.c_str(), 500)) return nullptr;
  }
  if (pipe == INVALID_HANDLE_VALUE) return nullptr;
  HANDLE event = CreateEventW(nullptr, TRUE, FALSE, nullptr);
  if (event == nullptr) {
    CloseHandle(pipe);
    return nullptr;
  }
  return std::unique_ptr<Transport>(new PipeTransport(pipe, event));
}

}  // namespace win
}  // namespace clrscope
