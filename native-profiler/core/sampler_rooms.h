#pragma once
// The rooms of the Sampler (core/sampler.h), joined here so that sampler.h itself names none of
// them. Only the Sampler's own files include this.
#include <memory>
#include <vector>

#include "core/async_chains.h"
#include "core/capture_drain.h"
#include "core/emitter.h"
#include "core/sample_stream.h"
#include "core/sampler.h"
#include "core/thread_book.h"
#include "core/thread_scan.h"
#include "core/unanswered_cpu.h"
#include "core/wall_scheduler.h"

namespace clrscope {

struct Sampler::Rooms {
  Rooms(const SamplerConfig& config, SamplingShared* shared, FrameResolver* resolver, Transport* transport)
      : stream(transport, config.outbox_bytes, resolver),
        unanswered(RoomParts{config, shared, &stream, &book}),
        scan(RoomParts{config, shared, &stream, &book}, &unanswered),
        wall(RoomParts{config, shared, &stream, &book}),
        drain(shared, &stream, &book, &scan, &wall, &emitters) {}

  SampleStream stream;
  ThreadBook book;
  UnansweredCpu unanswered;
  ThreadScan scan;
  WallScheduler wall;
  std::vector<std::unique_ptr<Emitter>> emitters;
  CaptureDrain drain;
  AsyncChains* async = nullptr;  // one of the emitters, when async call stacks are on
  bool registered = false;
};

}  // namespace clrscope
