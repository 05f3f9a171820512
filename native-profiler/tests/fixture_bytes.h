#pragma once
// Reads the shared wire fixtures (structs/wire/fixtures/*.hex): hex bytes, '#' comments.
#include <cstdint>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace clrscope::testing {

inline std::vector<uint8_t> read_hex_fixture(const std::string& name) {
  std::ifstream in(std::string(CLRSCOPE_SOURCE_DIR) + "/structs/wire/fixtures/" + name);
  std::vector<uint8_t> out;
  std::string line;
  while (std::getline(in, line)) {
    const size_t hash = line.find('#');
    if (hash != std::string::npos) line.resize(hash);
    std::istringstream words(line);
    std::string w;
    while (words >> w) out.push_back(static_cast<uint8_t>(std::stoul(w, nullptr, 16)));
  }
  return out;
}

}  // namespace clrscope::testing
