#pragma once
// Where the stream goes. The sampler thread is the only writer; a transport never blocks.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

namespace clrscope {

class Transport {
 public:
  enum class Status { kSent, kWouldBlock, kBroken };
  virtual ~Transport() = default;
  // Sends up to `size` bytes without blocking; *sent says how many went.
  virtual Status send(const uint8_t* data, size_t size, size_t* sent) = 0;
  // Waits up to timeout_ms for the peer to accept more bytes (used only for the final flush).
  virtual bool wait_writable(int timeout_ms) = 0;
  // True once the reader has shut down its sending side: its way of asking the writer to
  // finish the stream cleanly (send what it has, then END) rather than be cut off.
  virtual bool peer_finished() { return false; }
};

// Connects to the workstation's socket at `path`; nullptr when nobody listens there.
std::unique_ptr<Transport> connect_transport(const std::string& path);

}  // namespace clrscope
