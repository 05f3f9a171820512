#pragma once
// Where the stream goes. The sampler thread is the only writer; a transport never blocks.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

namespace clrscope {

// How a transport's connection stopped being clrscope's (core/own_descriptor.h): the program
// closed its descriptor (kClosed) or something else took its number (kReplaced).
struct TransportLoss {
  int descriptor = -1;
  uint8_t how = 0;  // 0: not lost; DescriptorState otherwise
};

class Transport {
 public:
  // kLost: the connection's descriptor is no longer clrscope's; nothing more was sent (*sent
  // counts what went before it was found), and nothing is sent or read on it from then on.
  enum class Status { kSent, kWouldBlock, kBroken, kLost };
  virtual ~Transport() = default;
  // Sends up to `size` bytes without blocking; *sent says how many went.
  virtual Status send(const uint8_t* data, size_t size, size_t* sent) = 0;
  // Waits up to timeout_ms for the peer to accept more bytes (used only for the final flush).
  virtual bool wait_writable(int timeout_ms) = 0;
  // True once the reader has shut down its sending side: its way of asking the writer to
  // finish the stream cleanly (send what it has, then END) rather than be cut off.
  virtual bool peer_finished() { return false; }
  // Says the stream is over (after END): the reader sees its end of input at once rather than
  // when the connection is finally closed.
  virtual void finish() {}
  // The reader may also send control commands (structs/wire/PROTOCOL.md, "Control commands"):
  // reads what has arrived without blocking. kClosed once the reader shut its sending side.
  enum class Received { kData, kNone, kClosed, kLost };
  // Whether receive() reads anything at all on this kind of connection.
  virtual bool receives() const { return false; }
  virtual Received receive(uint8_t* buffer, size_t size, size_t* got) {
    (void)buffer;
    (void)size;
    *got = 0;
    return Received::kNone;
  }
  // Set once the connection was found to be no longer clrscope's (Status::kLost).
  virtual TransportLoss loss() const { return TransportLoss{}; }
  // A new connection to the same reader (its secret sent first), to tell it why the first one
  // ended when that one was lost; nullptr when there is none.
  virtual std::unique_ptr<Transport> reconnect() { return nullptr; }
};

// Connects to the workstation at `endpoint` (CLRSCOPE_SOCKET); nullptr when nobody listens there.
// The endpoint is a Unix socket's path, a named pipe (\\.\pipe\..., Windows only), or
// "tcp:127.0.0.1:PORT" (core/profiler_config.h): loopback TCP for a process that cannot reach the
// workstation's socket (a Windows program under Wine, a container sharing the host's network).
// Loopback TCP is open to every user of the machine, so there the 32 bytes of `secret` go first,
// before anything else on the connection, and the collector hangs up on a connection without
// them (structs/wire/PROTOCOL.md, "Connection"). The secret is unused for the other kinds.
std::unique_ptr<Transport> connect_transport(const std::string& endpoint, const uint8_t* secret);

}  // namespace clrscope
