#pragma once
// What the rooms of the sampler that look after threads (the thread scan, the wall scheduler,
// the CPU that came without a capture) work with: the Sampler's configuration, the state the
// handler and the sampler meet in, the stream and what is known of each thread.
namespace clrscope {

class ThreadBook;
struct SampleStream;
struct SamplerConfig;
struct SamplingShared;

struct RoomParts {
  const SamplerConfig& config;
  SamplingShared* shared;
  SampleStream* stream;
  ThreadBook* book;
};

class SamplerRoom {
 protected:
  explicit SamplerRoom(const RoomParts& parts)
      : config_(parts.config), shared_(parts.shared), stream_(parts.stream), book_(parts.book) {}

  const SamplerConfig& config_;
  SamplingShared* shared_;
  SampleStream* stream_;
  ThreadBook* book_;
};

}  // namespace clrscope
