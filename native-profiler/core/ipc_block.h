#pragma once
// Our declarations of the .NET Framework 4.x perf-counter IPC block (one 2 KiB block of
// Cor_SxSPublic_IPCBlock): an IPCHeader with its IPCEntry directory, then the
// PerfCounterIPCControlBlock. The counters writer fills this layout in shared memory so that one
// reader (structs/ipcblock) serves both the real .NET Framework block and ours.
//
// Every number here comes from structs/ipcblock/golden-layout.json, the one table the C++ tests
// (tests/ipc_block_layout_test.cpp) and the TypeScript tests check; structs/ipcblock/README.md
// says where each fact comes from. The structs mirror the runtime's own, so they live in
// namespace clr and keep the runtime's member names (the golden table uses the same names).
//
// Bitness: size_t fields are 4 bytes in a 32-bit process and 8 in a 64-bit one. The runtime
// builds its 32-bit perf structs with 4-byte packing, so there its two 8-byte fields
// (Perf_Loading::timeLoading, Perf_Security::timeAuthorize) sit on 4-byte boundaries. A 64-bit
// build uses natural alignment. The header compiles for either; the static_asserts below hold the
// layout of whichever is being compiled to the golden numbers.
//
// No Windows header: it compiles with g++ (LP64 and -m32) and with mingw-w64 alike.
#include <cstddef>
#include <cstdint>

#include "clr/pal_types.h"

#if UINTPTR_MAX == 0xFFFFFFFFu
#define CLRSCOPE_IPC_BLOCK_32 1
#elif UINTPTR_MAX == 0xFFFFFFFFFFFFFFFFu
#define CLRSCOPE_IPC_BLOCK_32 0
#else
#error "ipc_block.h: only 32-bit and 64-bit processes have a perf-counter IPC block layout"
#endif

namespace clr {

// ---- Constants of the block table and its header ----
inline constexpr std::uint32_t kIpcBlockSize = 2048;         // one block; the header's offsets stay below this
inline constexpr std::uint32_t kIpcNumBlocksInTable = 32;    // blocks in Cor_SxSPublic_IPCBlock
inline constexpr std::uint32_t kIpcBlockTableSize = 65536;   // kIpcBlockSize * kIpcNumBlocksInTable
inline constexpr std::uint16_t kIpcBlockVersion = 4;         // IPCHeader::m_Version of the 4.x block
inline constexpr std::uint32_t kIpcEntryPerfCounters = 0;    // directory slot of the perf block
inline constexpr std::uint32_t kIpcEntryCount = 1;           // directory slots in a version 4 block
inline constexpr std::uint32_t kIpcEmptyEntryOffset = 0xFFFFFFFFu;  // an unused directory slot
inline constexpr std::uint16_t kIpcFlagUsesFlags = 0x1;      // m_Flags is meaningful
inline constexpr std::uint16_t kIpcFlagInitialized = 0x2;    // the writer finished setting up
inline constexpr std::uint16_t kIpcFlagX86 = 0x4;            // written by a 32-bit process
inline constexpr std::uint16_t kPerfAttrOn = 0x1;            // counters are being updated
inline constexpr std::uint16_t kPerfAttrGlobal = 0x2;        // the old machine-wide block (unused)
inline constexpr int kMaxTrackedGens = 3;                    // generations with their own counters

// ---- Header and directory (same layout in 32-bit and 64-bit processes) ----

// Where one client's section lies: Offset counts from the start of the block (the IPCHeader).
struct IPCEntry {
  DWORD m_Offset;
  DWORD m_Size;
};

struct IPCHeader {
  // The sequence counter. Even: stable. Odd: a writer is inside. A writer makes it odd with a
  // compare-and-swap, writes, then makes it even again (skipping 0, which means "never
  // written"). Readers read it before and after copying and retry when it was odd or changed.
  LONG m_Counter;
  DWORD m_RuntimeId;  // 0: the block is free; otherwise the owning runtime's id
  DWORD m_Reserved1;
  DWORD m_Reserved2;
  USHORT m_Version;   // kIpcBlockVersion
  USHORT m_Flags;     // kIpcFlag* bits
  DWORD m_blockSize;  // sizeof(IPCHeader) + sizeof(PerfCounterIPCControlBlock), not kIpcBlockSize
  USHORT m_BuildYear;
  USHORT m_BuildNumber;
  DWORD m_numEntries;  // kIpcEntryCount
  IPCEntry m_table[kIpcEntryCount];
};

// ---- Counter helpers ----

// A counter with a current value (goes up and down) and a running total (only goes up).
struct TRICOUNT {
  DWORD Cur;
  DWORD Total;
};

// The runtime updates this one with interlocked operations; the layout is TRICOUNT's.
struct TRICOUNT_IL {
  DWORD Cur;
  DWORD Total;
};

// A counter that only goes up.
struct DUALCOUNT {
  DWORD Total;
};

#if CLRSCOPE_IPC_BLOCK_32
#pragma pack(push, 4)
#endif

// ---- The perf-counter sections ----

struct Perf_GC {
  SIZE_T cGenCollections[kMaxTrackedGens];
  SIZE_T cbPromotedMem[kMaxTrackedGens - 1];
  SIZE_T cbPromotedFinalizationMem;
  SIZE_T cProcessID;
  SIZE_T cGenHeapSize[kMaxTrackedGens];
  SIZE_T cTotalCommittedBytes;
  SIZE_T cTotalReservedBytes;
  SIZE_T cLrgObjSize;
  SIZE_T cSurviveFinalize;
  SIZE_T cHandles;
  SIZE_T cbAlloc;
  SIZE_T cbLargeAlloc;
  SIZE_T cInducedGCs;
  DWORD timeInGC;
  DWORD timeInGCBase;
  SIZE_T cPinnedObj;
  SIZE_T cSinkBlocks;
};

struct Perf_Contexts {
  DUALCOUNT cRemoteCalls;
  DWORD cChannels;
  DWORD cProxies;
  DWORD cClasses;
  DWORD cObjAlloc;
  DWORD cContexts;
};

struct Perf_Interop {
  DWORD cCCW;
  DWORD cStubs;
  DWORD cMarshalling;
  DWORD cTLBImports;
  DWORD cTLBExports;
};

struct Perf_Loading {
  TRICOUNT cClassesLoaded;
  TRICOUNT_IL cAppDomains;
  TRICOUNT cAssemblies;
  std::int64_t timeLoading;
  DWORD cAsmSearchLen;
  DUALCOUNT cLoadFailures;
  SIZE_T cbLoaderHeapSize;
  DUALCOUNT cAppDomainsUnloaded;
};

struct Perf_Excep {
  DUALCOUNT cThrown;
  DWORD cFiltersExecuted;
  DWORD cFinallysExecuted;
  DWORD cThrowToCatchStackDepth;
};

struct Perf_LocksAndThreads {
  DUALCOUNT cContention;
  TRICOUNT cQueueLength;
  DWORD cCurrentThreadsLogical;
  DWORD cCurrentThreadsPhysical;
  TRICOUNT cRecognizedThreads;
};

struct Perf_Jit {
  DWORD cMethodsJitted;
  TRICOUNT cbILJitted;
  DWORD cJitFailures;
  DWORD timeInJit;
  DWORD timeInJitBase;
};

struct Perf_Security {
  DWORD cTotalRTChecks;
  std::int64_t timeAuthorize;
  DWORD cLinkChecks;
  DWORD timeRTchecks;
  DWORD timeRTchecksBase;
  DWORD stackWalkDepth;
};

struct PerfCounterIPCControlBlock {
  std::uint16_t m_cBytes;  // sizeof(PerfCounterIPCControlBlock)
  std::uint16_t m_wAttrs;  // kPerfAttr* bits
  Perf_GC m_GC;
  Perf_Contexts m_Context;
  Perf_Interop m_Interop;
  Perf_Loading m_Loading;
  Perf_Excep m_Excep;
  Perf_LocksAndThreads m_LocksAndThreads;
  Perf_Jit m_Jit;
  Perf_Security m_Security;
};

#if CLRSCOPE_IPC_BLOCK_32
#pragma pack(pop)
#endif

// The size the header's m_blockSize and the writer's m_cBytes/m_table carry.
inline constexpr std::uint32_t kIpcBlockUsedSize =
    static_cast<std::uint32_t>(sizeof(IPCHeader) + sizeof(PerfCounterIPCControlBlock));

// One whole block of the table: header, perf section, zero padding up to kIpcBlockSize.
struct IPCControlBlock {
  IPCHeader m_Header;
  PerfCounterIPCControlBlock m_perf;
  BYTE m_Padding[kIpcBlockSize - kIpcBlockUsedSize];
};

// ---- The golden numbers for the bitness being compiled ----
namespace ipc_golden {
#if CLRSCOPE_IPC_BLOCK_32
constexpr std::size_t pick(std::size_t b32, std::size_t /*b64*/) { return b32; }
#else
constexpr std::size_t pick(std::size_t /*b32*/, std::size_t b64) { return b64; }
#endif
}  // namespace ipc_golden

static_assert(sizeof(IPCEntry) == 8 && offsetof(IPCEntry, m_Size) == 4, "IPCEntry");
static_assert(sizeof(IPCHeader) == 40, "IPCHeader size");
static_assert(offsetof(IPCHeader, m_Counter) == 0, "the sequence counter is the first 4 bytes");
static_assert(offsetof(IPCHeader, m_RuntimeId) == 4, "IPCHeader::m_RuntimeId");
static_assert(offsetof(IPCHeader, m_Version) == 16, "IPCHeader::m_Version");
static_assert(offsetof(IPCHeader, m_Flags) == 18, "IPCHeader::m_Flags");
static_assert(offsetof(IPCHeader, m_blockSize) == 20, "IPCHeader::m_blockSize");
static_assert(offsetof(IPCHeader, m_BuildYear) == 24, "IPCHeader::m_BuildYear");
static_assert(offsetof(IPCHeader, m_numEntries) == 28, "IPCHeader::m_numEntries");
static_assert(offsetof(IPCHeader, m_table) == 32, "IPCHeader::m_table");
static_assert(sizeof(TRICOUNT) == 8 && sizeof(TRICOUNT_IL) == 8 && sizeof(DUALCOUNT) == 4, "counters");

static_assert(sizeof(Perf_GC) == ipc_golden::pick(88, 168), "Perf_GC size");
static_assert(alignof(Perf_GC) == ipc_golden::pick(4, 8), "Perf_GC alignment");
static_assert(offsetof(Perf_GC, cbPromotedMem) == ipc_golden::pick(12, 24), "Perf_GC::cbPromotedMem");
static_assert(offsetof(Perf_GC, cProcessID) == ipc_golden::pick(24, 48), "Perf_GC::cProcessID");
static_assert(offsetof(Perf_GC, cGenHeapSize) == ipc_golden::pick(28, 56), "Perf_GC::cGenHeapSize");
static_assert(offsetof(Perf_GC, cLrgObjSize) == ipc_golden::pick(48, 96), "Perf_GC::cLrgObjSize");
static_assert(offsetof(Perf_GC, cInducedGCs) == ipc_golden::pick(68, 136), "Perf_GC::cInducedGCs");
static_assert(offsetof(Perf_GC, timeInGC) == ipc_golden::pick(72, 144), "Perf_GC::timeInGC");
static_assert(offsetof(Perf_GC, cPinnedObj) == ipc_golden::pick(80, 152), "Perf_GC::cPinnedObj");
static_assert(offsetof(Perf_GC, cSinkBlocks) == ipc_golden::pick(84, 160), "Perf_GC::cSinkBlocks");
static_assert(sizeof(Perf_Contexts) == 24 && sizeof(Perf_Interop) == 20, "Contexts, Interop");
static_assert(sizeof(Perf_Loading) == ipc_golden::pick(48, 56), "Perf_Loading size");
static_assert(offsetof(Perf_Loading, timeLoading) == 24, "Perf_Loading::timeLoading");
static_assert(offsetof(Perf_Loading, cbLoaderHeapSize) == 40, "Perf_Loading::cbLoaderHeapSize");
static_assert(offsetof(Perf_Loading, cAppDomainsUnloaded) == ipc_golden::pick(44, 48),
              "Perf_Loading::cAppDomainsUnloaded");
static_assert(sizeof(Perf_Excep) == 16 && sizeof(Perf_LocksAndThreads) == 28 && sizeof(Perf_Jit) == 24,
              "Excep, LocksAndThreads, Jit");
static_assert(sizeof(Perf_Security) == ipc_golden::pick(28, 32), "Perf_Security size");
static_assert(offsetof(Perf_Security, timeAuthorize) == ipc_golden::pick(4, 8), "Perf_Security::timeAuthorize");
static_assert(offsetof(Perf_Security, stackWalkDepth) == ipc_golden::pick(24, 28), "Perf_Security::stackWalkDepth");

static_assert(sizeof(PerfCounterIPCControlBlock) == ipc_golden::pick(280, 384), "perf block size");
static_assert(alignof(PerfCounterIPCControlBlock) == ipc_golden::pick(4, 8), "perf block alignment");
static_assert(offsetof(PerfCounterIPCControlBlock, m_GC) == ipc_golden::pick(4, 8), "m_GC");
static_assert(offsetof(PerfCounterIPCControlBlock, m_Context) == ipc_golden::pick(92, 176), "m_Context");
static_assert(offsetof(PerfCounterIPCControlBlock, m_Interop) == ipc_golden::pick(116, 200), "m_Interop");
static_assert(offsetof(PerfCounterIPCControlBlock, m_Loading) == ipc_golden::pick(136, 224), "m_Loading");
static_assert(offsetof(PerfCounterIPCControlBlock, m_Excep) == ipc_golden::pick(184, 280), "m_Excep");
static_assert(offsetof(PerfCounterIPCControlBlock, m_LocksAndThreads) == ipc_golden::pick(200, 296),
              "m_LocksAndThreads");
static_assert(offsetof(PerfCounterIPCControlBlock, m_Jit) == ipc_golden::pick(228, 324), "m_Jit");
static_assert(offsetof(PerfCounterIPCControlBlock, m_Security) == ipc_golden::pick(252, 352), "m_Security");

static_assert(offsetof(IPCControlBlock, m_perf) == 40, "the perf section starts right after the header");
static_assert(kIpcBlockUsedSize == ipc_golden::pick(320, 424), "IPCHeader::m_blockSize value");
static_assert(sizeof(IPCControlBlock) == kIpcBlockSize, "a block is exactly 2 KiB");
static_assert(kIpcBlockTableSize == kIpcBlockSize * kIpcNumBlocksInTable, "block table size");

}  // namespace clr
