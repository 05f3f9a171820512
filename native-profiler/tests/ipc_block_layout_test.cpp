// Checks core/ipc_block.h against structs/ipcblock/golden-layout.json, the table the TypeScript
// (koffi) layouts are checked against too.
//
// - The table for this build's bitness (64 on the build machines) is compared field by field with
//   offsetof/sizeof/alignof of the compiled structs, and both sides must list the same fields.
// - The other ABIs are checked by compiling a generated file of static_asserts (one per golden
//   number) with the cross compilers that are installed: g++ -m32 (Linux i386; Debian package
//   g++-multilib), i686-w64-mingw32-g++ (32-bit Windows, the ABI of a real 32-bit .NET Framework
//   process; g++-mingw-w64-i686-posix) and x86_64-w64-mingw32-g++ (64-bit Windows). A missing
//   compiler skips its test and says which package brings it.
#include "core/ipc_block.h"

#include <gtest/gtest.h>

#include <cctype>
#include <cstdio>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <map>
#include <memory>
#include <set>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

namespace {

// ---- A small JSON reader: enough for the golden table (objects, arrays, strings, integers, null).

struct Json {
  enum class Kind { Null, Bool, Number, String, Array, Object } kind = Kind::Null;
  bool boolean = false;
  double number = 0;
  std::string text;
  std::vector<Json> items;
  std::vector<std::pair<std::string, Json>> members;  // in file order

  const Json& at(const std::string& key) const {
    for (const auto& m : members) {
      if (m.first == key) return m.second;
    }
    throw std::runtime_error("golden-layout.json: missing key \"" + key + "\"");
  }
  std::uint64_t integer() const {
    if (kind != Kind::Number) throw std::runtime_error("golden-layout.json: expected a number");
    return static_cast<std::uint64_t>(number);
  }
};

class JsonReader {
 public:
  explicit JsonReader(const std::string& s) : s_(s) {}

  Json document() {
    Json v = value();
    skip_space();
    if (pos_ != s_.size()) fail("text after the document");
    return v;
  }

 private:
  [[noreturn]] void fail(const std::string& what) const {
    throw std::runtime_error("golden-layout.json at byte " + std::to_string(pos_) + ": " + what);
  }
  void skip_space() {
    while (pos_ < s_.size() && (s_[pos_] == ' ' || s_[pos_] == '\n' || s_[pos_] == '\r' || s_[pos_] == '\t')) ++pos_;
  }
  bool take(char c) {
    skip_space();
    if (pos_ < s_.size() && s_[pos_] == c) {
      ++pos_;
      return true;
    }
    return false;
  }
  void expect(char c) {
    if (!take(c)) fail(std::string("expected '") + c + "'");
  }
  bool take_word(const char* w) {
    const std::string word(w);
    if (s_.compare(pos_, word.size(), word) == 0) {
      pos_ += word.size();
      return true;
    }
    return false;
  }
  std::string string_literal() {
    expect('"');
    std::string out;
    while (pos_ < s_.size() && s_[pos_] != '"') {
      char c = s_[pos_++];
      if (c == '\\') {
        if (pos_ >= s_.size()) fail("unfinished escape");
        const char e = s_[pos_++];
        switch (e) {
          case 'n': c = '\n'; break;
          case 't': c = '\t'; break;
          case '"': case '\\': case '/': c = e; break;
          default: fail("unsupported escape");
        }
      }
      out.push_back(c);
    }
    if (pos_ >= s_.size()) fail("unfinished string");
    ++pos_;
    return out;
  }
  Json value() {
    skip_space();
    if (pos_ >= s_.size()) fail("unexpected end");
    Json v;
    const char c = s_[pos_];
    if (c == '{') {
      v.kind = Json::Kind::Object;
      ++pos_;
      if (take('}')) return v;
      do {
        skip_space();
        std::string key = string_literal();
        expect(':');
        v.members.emplace_back(std::move(key), value());
      } while (take(','));
      expect('}');
    } else if (c == '[') {
      v.kind = Json::Kind::Array;
      ++pos_;
      if (take(']')) return v;
      do {
        v.items.push_back(value());
      } while (take(','));
      expect(']');
    } else if (c == '"') {
      v.kind = Json::Kind::String;
      v.text = string_literal();
    } else if (take_word("null")) {
      v.kind = Json::Kind::Null;
    } else if (take_word("true")) {
      v.kind = Json::Kind::Bool;
      v.boolean = true;
    } else if (take_word("false")) {
      v.kind = Json::Kind::Bool;
    } else {
      const std::size_t start = pos_;
      while (pos_ < s_.size() && (std::isdigit(static_cast<unsigned char>(s_[pos_])) || s_[pos_] == '-')) ++pos_;
      if (start == pos_) fail("unexpected character");
      v.kind = Json::Kind::Number;
      v.number = std::stod(s_.substr(start, pos_ - start));
    }
    return v;
  }

  const std::string& s_;
  std::size_t pos_ = 0;
};

std::string source_path(const std::string& relative) {
  return std::string(CLRSCOPE_SOURCE_DIR) + "/" + relative;
}

const Json& golden() {
  static const std::unique_ptr<Json> doc = [] {
    std::ifstream in(source_path("structs/ipcblock/golden-layout.json"), std::ios::binary);
    if (!in) throw std::runtime_error("cannot open structs/ipcblock/golden-layout.json");
    std::stringstream buf;
    buf << in.rdbuf();
    const std::string text = buf.str();
    return std::make_unique<Json>(JsonReader(text).document());
  }();
  return *doc;
}

const Json& golden_structs(const char* bitness) { return golden().at("bitness").at(bitness).at("structs"); }

// ---- The compiled layout, listed once per field by the same names the golden table uses. ----

struct NativeField {
  std::size_t offset;
  std::size_t size;
};
struct NativeStruct {
  std::size_t size;
  std::size_t align;
  std::map<std::string, NativeField> fields;
};

#define IPC_FIELD(S, F) s[#S].fields[#F] = NativeField{offsetof(clr::S, F), sizeof(clr::S::F)}
#define IPC_STRUCT(S) s[#S].size = sizeof(clr::S), s[#S].align = alignof(clr::S)

std::map<std::string, NativeStruct> native_layout() {
  std::map<std::string, NativeStruct> s;
  IPC_STRUCT(IPCEntry);
  IPC_FIELD(IPCEntry, m_Offset);
  IPC_FIELD(IPCEntry, m_Size);
  IPC_STRUCT(IPCHeader);
  IPC_FIELD(IPCHeader, m_Counter);
  IPC_FIELD(IPCHeader, m_RuntimeId);
  IPC_FIELD(IPCHeader, m_Reserved1);
  IPC_FIELD(IPCHeader, m_Reserved2);
  IPC_FIELD(IPCHeader, m_Version);
  IPC_FIELD(IPCHeader, m_Flags);
  IPC_FIELD(IPCHeader, m_blockSize);
  IPC_FIELD(IPCHeader, m_BuildYear);
  IPC_FIELD(IPCHeader, m_BuildNumber);
  IPC_FIELD(IPCHeader, m_numEntries);
  IPC_FIELD(IPCHeader, m_table);
  IPC_STRUCT(TRICOUNT);
  IPC_FIELD(TRICOUNT, Cur);
  IPC_FIELD(TRICOUNT, Total);
  IPC_STRUCT(TRICOUNT_IL);
  IPC_FIELD(TRICOUNT_IL, Cur);
  IPC_FIELD(TRICOUNT_IL, Total);
  IPC_STRUCT(DUALCOUNT);
  IPC_FIELD(DUALCOUNT, Total);
  IPC_STRUCT(Perf_GC);
  IPC_FIELD(Perf_GC, cGenCollections);
  IPC_FIELD(Perf_GC, cbPromotedMem);
  IPC_FIELD(Perf_GC, cbPromotedFinalizationMem);
  IPC_FIELD(Perf_GC, cProcessID);
  IPC_FIELD(Perf_GC, cGenHeapSize);
  IPC_FIELD(Perf_GC, cTotalCommittedBytes);
  IPC_FIELD(Perf_GC, cTotalReservedBytes);
  IPC_FIELD(Perf_GC, cLrgObjSize);
  IPC_FIELD(Perf_GC, cSurviveFinalize);
  IPC_FIELD(Perf_GC, cHandles);
  IPC_FIELD(Perf_GC, cbAlloc);
  IPC_FIELD(Perf_GC, cbLargeAlloc);
  IPC_FIELD(Perf_GC, cInducedGCs);
  IPC_FIELD(Perf_GC, timeInGC);
  IPC_FIELD(Perf_GC, timeInGCBase);
  IPC_FIELD(Perf_GC, cPinnedObj);
  IPC_FIELD(Perf_GC, cSinkBlocks);
  IPC_STRUCT(Perf_Contexts);
  IPC_FIELD(Perf_Contexts, cRemoteCalls);
  IPC_FIELD(Perf_Contexts, cChannels);
  IPC_FIELD(Perf_Contexts, cProxies);
  IPC_FIELD(Perf_Contexts, cClasses);
  IPC_FIELD(Perf_Contexts, cObjAlloc);
  IPC_FIELD(Perf_Contexts, cContexts);
  IPC_STRUCT(Perf_Interop);
  IPC_FIELD(Perf_Interop, cCCW);
  IPC_FIELD(Perf_Interop, cStubs);
  IPC_FIELD(Perf_Interop, cMarshalling);
  IPC_FIELD(Perf_Interop, cTLBImports);
  IPC_FIELD(Perf_Interop, cTLBExports);
  IPC_STRUCT(Perf_Loading);
  IPC_FIELD(Perf_Loading, cClassesLoaded);
  IPC_FIELD(Perf_Loading, cAppDomains);
  IPC_FIELD(Perf_Loading, cAssemblies);
  IPC_FIELD(Perf_Loading, timeLoading);
  IPC_FIELD(Perf_Loading, cAsmSearchLen);
  IPC_FIELD(Perf_Loading, cLoadFailures);
  IPC_FIELD(Perf_Loading, cbLoaderHeapSize);
  IPC_FIELD(Perf_Loading, cAppDomainsUnloaded);
  IPC_STRUCT(Perf_Excep);
  IPC_FIELD(Perf_Excep, cThrown);
  IPC_FIELD(Perf_Excep, cFiltersExecuted);
  IPC_FIELD(Perf_Excep, cFinallysExecuted);
  IPC_FIELD(Perf_Excep, cThrowToCatchStackDepth);
  IPC_STRUCT(Perf_LocksAndThreads);
  IPC_FIELD(Perf_LocksAndThreads, cContention);
  IPC_FIELD(Perf_LocksAndThreads, cQueueLength);
  IPC_FIELD(Perf_LocksAndThreads, cCurrentThreadsLogical);
  IPC_FIELD(Perf_LocksAndThreads, cCurrentThreadsPhysical);
  IPC_FIELD(Perf_LocksAndThreads, cRecognizedThreads);
  IPC_STRUCT(Perf_Jit);
  IPC_FIELD(Perf_Jit, cMethodsJitted);
  IPC_FIELD(Perf_Jit, cbILJitted);
  IPC_FIELD(Perf_Jit, cJitFailures);
  IPC_FIELD(Perf_Jit, timeInJit);
  IPC_FIELD(Perf_Jit, timeInJitBase);
  IPC_STRUCT(Perf_Security);
  IPC_FIELD(Perf_Security, cTotalRTChecks);
  IPC_FIELD(Perf_Security, timeAuthorize);
  IPC_FIELD(Perf_Security, cLinkChecks);
  IPC_FIELD(Perf_Security, timeRTchecks);
  IPC_FIELD(Perf_Security, timeRTchecksBase);
  IPC_FIELD(Perf_Security, stackWalkDepth);
  IPC_STRUCT(PerfCounterIPCControlBlock);
  IPC_FIELD(PerfCounterIPCControlBlock, m_cBytes);
  IPC_FIELD(PerfCounterIPCControlBlock, m_wAttrs);
  IPC_FIELD(PerfCounterIPCControlBlock, m_GC);
  IPC_FIELD(PerfCounterIPCControlBlock, m_Context);
  IPC_FIELD(PerfCounterIPCControlBlock, m_Interop);
  IPC_FIELD(PerfCounterIPCControlBlock, m_Loading);
  IPC_FIELD(PerfCounterIPCControlBlock, m_Excep);
  IPC_FIELD(PerfCounterIPCControlBlock, m_LocksAndThreads);
  IPC_FIELD(PerfCounterIPCControlBlock, m_Jit);
  IPC_FIELD(PerfCounterIPCControlBlock, m_Security);
  IPC_STRUCT(IPCControlBlock);
  IPC_FIELD(IPCControlBlock, m_Header);
  IPC_FIELD(IPCControlBlock, m_perf);
  IPC_FIELD(IPCControlBlock, m_Padding);
  return s;
}

#undef IPC_FIELD
#undef IPC_STRUCT

const char* native_bitness() { return sizeof(void*) == 8 ? "64" : "32"; }

TEST(IpcBlockLayout, NativeStructsMatchTheGoldenTableFieldByField) {
  const Json& table = golden_structs(native_bitness());
  const auto native = native_layout();
  std::set<std::string> golden_names;
  for (const auto& [name, spec] : table.members) {
    golden_names.insert(name);
    SCOPED_TRACE("struct " + name);
    const auto it = native.find(name);
    ASSERT_NE(it, native.end()) << "ipc_block.h does not declare " << name;
    const NativeStruct& ns = it->second;
    EXPECT_EQ(ns.size, spec.at("size").integer());
    EXPECT_EQ(ns.align, spec.at("align").integer());
    std::set<std::string> golden_fields;
    for (const Json& f : spec.at("fields").items) {
      const std::string& field = f.at("name").text;
      golden_fields.insert(field);
      const auto fit = ns.fields.find(field);
      ASSERT_NE(fit, ns.fields.end()) << name << "::" << field << " is missing from ipc_block.h";
      EXPECT_EQ(fit->second.offset, f.at("offset").integer()) << name << "::" << field << " offset";
      EXPECT_EQ(fit->second.size, f.at("size").integer()) << name << "::" << field << " size";
    }
    for (const auto& nf : ns.fields) {
      EXPECT_TRUE(golden_fields.count(nf.first)) << name << "::" << nf.first << " is not in the golden table";
    }
  }
  for (const auto& ns : native) {
    EXPECT_TRUE(golden_names.count(ns.first)) << ns.first << " is not in the golden table";
  }
}

TEST(IpcBlockLayout, BlockFactsAndConstantsMatchTheGoldenTable) {
  const Json& block = golden().at("bitness").at(native_bitness()).at("block");
  EXPECT_EQ(offsetof(clr::IPCControlBlock, m_perf), block.at("perfOffset").integer());
  EXPECT_EQ(sizeof(clr::PerfCounterIPCControlBlock), block.at("perfSize").integer());
  EXPECT_EQ(clr::kIpcBlockUsedSize, block.at("blockSize").integer());
  EXPECT_EQ(sizeof(clr::IPCHeader), block.at("headerSize").integer());
  EXPECT_EQ(offsetof(clr::IPCHeader, m_Counter), block.at("sequenceCounterOffset").integer());
  EXPECT_EQ(sizeof(clr::IPCHeader::m_Counter), block.at("sequenceCounterSize").integer());

  const Json& c = golden().at("constants");
  EXPECT_EQ(clr::kIpcBlockSize, c.at("IPC_BLOCK_SIZE").integer());
  EXPECT_EQ(clr::kIpcNumBlocksInTable, c.at("IPC_NUM_BLOCKS_IN_TABLE").integer());
  EXPECT_EQ(clr::kIpcBlockTableSize, c.at("IPC_BLOCK_TABLE_SIZE").integer());
  EXPECT_EQ(clr::kIpcBlockVersion, c.at("VER_IPC_BLOCK").integer());
  EXPECT_EQ(clr::kIpcEntryPerfCounters, c.at("eIPC_PerfCounters").integer());
  EXPECT_EQ(clr::kIpcEntryCount, c.at("eIPC_MAX").integer());
  EXPECT_EQ(clr::kIpcEmptyEntryOffset, c.at("EMPTY_ENTRY_OFFSET").integer());
  EXPECT_EQ(clr::kIpcFlagUsesFlags, c.at("IPC_FLAG_USES_FLAGS").integer());
  EXPECT_EQ(clr::kIpcFlagInitialized, c.at("IPC_FLAG_INITIALIZED").integer());
  EXPECT_EQ(clr::kIpcFlagX86, c.at("IPC_FLAG_X86").integer());
  EXPECT_EQ(clr::kPerfAttrOn, c.at("PERF_ATTR_ON").integer());
  EXPECT_EQ(clr::kPerfAttrGlobal, c.at("PERF_ATTR_GLOBAL").integer());
  EXPECT_EQ(static_cast<std::uint64_t>(clr::kMaxTrackedGens), c.at("MAX_TRACKED_GENS").integer());
}

TEST(IpcBlockLayout, BothBitnessTablesDescribeOneTwoKilobyteBlock) {
  for (const char* bits : {"32", "64"}) {
    SCOPED_TRACE(std::string("bitness ") + bits);
    const Json& block = golden().at("bitness").at(bits).at("block");
    const Json& structs = golden_structs(bits);
    EXPECT_EQ(structs.at("IPCControlBlock").at("size").integer(), 2048u);
    EXPECT_EQ(block.at("blockSize").integer(), block.at("perfOffset").integer() + block.at("perfSize").integer());
    EXPECT_EQ(structs.at("PerfCounterIPCControlBlock").at("size").integer(), block.at("perfSize").integer());
  }
}

// ---- Other ABIs: a generated file of static_asserts, compiled by a cross compiler. ----

std::string generated_asserts(const char* bitness) {
  std::ostringstream out;
  out << "#include \"core/ipc_block.h\"\n";
  for (const auto& [name, spec] : golden_structs(bitness).members) {
    out << "static_assert(sizeof(clr::" << name << ") == " << spec.at("size").integer() << ", \"sizeof "
        << name << "\");\n";
    out << "static_assert(alignof(clr::" << name << ") == " << spec.at("align").integer() << ", \"alignof "
        << name << "\");\n";
    for (const Json& f : spec.at("fields").items) {
      const std::string& field = f.at("name").text;
      out << "static_assert(offsetof(clr::" << name << ", " << field << ") == " << f.at("offset").integer()
          << ", \"offset of " << name << "::" << field << "\");\n";
      out << "static_assert(sizeof(clr::" << name << "::" << field << ") == " << f.at("size").integer()
          << ", \"size of " << name << "::" << field << "\");\n";
    }
  }
  return out.str();
}

std::string read_text(const std::string& path) {
  std::ifstream in(path);
  std::stringstream buf;
  buf << in.rdbuf();
  return buf.str();
}

// Compiles the golden numbers of `bitness` with `compiler`; skips when the compiler is missing.
// `tag` keeps the scratch files of tests that run at the same time apart.
void check_with_cross_compiler(const std::string& compiler, const char* bitness, const char* tag,
                               const char* package) {
  const std::string stem = testing::TempDir() + "clrscope_ipc_" + tag;
  const std::string probe = stem + "_probe.cpp";
  const std::string source = stem + "_golden.cpp";
  const std::string log = stem + ".log";
  const auto remove_scratch = [&] {
    std::remove(probe.c_str());
    std::remove(source.c_str());
    std::remove(log.c_str());
  };
  { std::ofstream(probe) << "#include <cstdint>\nint probe_value = 0;\n"; }
  const std::string probe_cmd = compiler + " -std=c++17 -fsyntax-only " + probe + " > " + log + " 2>&1";
  if (std::system(probe_cmd.c_str()) != 0) {
    remove_scratch();
    // scripts/setup.sh installs every cross compiler, so in CI a missing one is a failure.
    if (std::getenv("CI") != nullptr) {
      FAIL() << "'" << compiler << "' is missing (Debian package " << package << "); scripts/setup.sh installs it";
    }
    GTEST_SKIP() << "'" << compiler << "' is not installed or cannot build here (Debian package " << package
                 << "), so this ABI is checked only by the TypeScript layout tests";
  }
  { std::ofstream(source) << generated_asserts(bitness); }
  const std::string cmd = compiler + " -std=c++17 -Wall -Wextra -Wpedantic -Werror -fsyntax-only -I" +
                          source_path("native-profiler") + " -I" + source_path("native-profiler/include") + " " +
                          source + " > " + log + " 2>&1";
  const int rc = std::system(cmd.c_str());
  EXPECT_EQ(rc, 0) << compiler << " found ipc_block.h off the " << bitness << "-bit golden table:\n"
                   << read_text(log);
  remove_scratch();
}

TEST(IpcBlockLayout, Linux32BitBuildMatchesThe32BitTable) {
  check_with_cross_compiler("g++ -m32", "32", "linux32", "g++-multilib");
}

TEST(IpcBlockLayout, Windows32BitBuildMatchesThe32BitTable) {
  check_with_cross_compiler("i686-w64-mingw32-g++", "32", "win32", "g++-mingw-w64-i686-posix");
}

TEST(IpcBlockLayout, Windows64BitBuildMatchesThe64BitTable) {
  check_with_cross_compiler("x86_64-w64-mingw32-g++", "64", "win64", "g++-mingw-w64-x86-64-posix");
}

}  // namespace
