#pragma once
// The measuring records of the stream and the commands the workstation sends back
// (structs/wire/PROTOCOL.md, "Measuring methods" and "Control commands"). Only record bodies
// are built here; the stream's writer frames them like any other record, so these records
// need nothing of the stream's framing and readers that do not know them skip them.
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "core/measure_figures.h"

namespace clrscope {
namespace measure_wire {

enum RecordType : uint8_t {
  kMeasureMethod = 0x20,
  kMeasureFigures = 0x21,
  kMeasureReply = 0x22,
  kControlReady = 0x23,
};

enum MethodState : uint8_t {
  kPending = 1,   // matched, ReJIT requested, the new code not compiled yet
  kActive = 2,    // instrumented code compiled: calls are being counted
  kRefused = 3,   // not instrumented; `detail` says why
  kReverted = 4,  // the original code is back; the figures are final
  kUnloaded = 5,  // its module was unloaded
};

enum MethodFlags : uint8_t {
  kAsyncSynchronousPart = 1,  // an async method: what is measured ends at its first real await
  kGeneric = 2,               // every instantiation counts into the same figures
};

enum ReplyStatus : uint8_t { kReplyOk = 0, kReplyRefused = 1, kReplyUnknownCommand = 2 };

enum CommandType : uint8_t { kCommandMeasure = 0x01, kCommandRevert = 0x02 };

constexpr uint16_t kControlVersion = 1;
constexpr uint32_t kMaxCommandBytes = 64 * 1024;

struct MethodRecord {
  uint32_t measure_id;
  uint32_t request;
  uint8_t state;
  uint8_t flags;
  std::string name;
  std::string module;
  std::string detail;
};

using Bytes = std::vector<uint8_t>;

void method_body(const MethodRecord& m, Bytes* out);
void figures_body(uint64_t mono, uint32_t measure_id, uint64_t dropped_calls, const measure::Figures& f, Bytes* out);
void reply_body(uint32_t request, uint8_t status, uint32_t matched, const std::string& message, Bytes* out);
void control_ready_body(Bytes* out);

struct Command {
  uint8_t type = 0;
  uint32_t request = 0;
  std::string pattern;      // kCommandMeasure
  uint32_t measure_id = 0;  // kCommandRevert; 0 means every measured method
};

// Splits the workstation's byte stream into commands, whatever the chunk boundaries.
class CommandReader {
 public:
  // Appends bytes; complete commands go to `out`. False once the stream is corrupt (a length
  // of 0 or above kMaxCommandBytes): the reader then ignores everything that follows.
  bool push(const uint8_t* data, size_t size, std::vector<Command>* out);
  bool corrupt() const { return corrupt_; }

 private:
  Bytes pending_;
  bool corrupt_ = false;
};

}  // namespace measure_wire
}  // namespace clrscope
