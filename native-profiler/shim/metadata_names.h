#pragma once
// Type names read from a module's metadata, for the parts that name types themselves (the
// managed names of frames, the async boxes' state machines, the measured methods).
#include <string>

#include "clr/metadata.h"

namespace clrscope {

// A type definition's name with its enclosing types' ("Outer+Inner"). Metadata gives a nested
// type only its own name, so the walk goes out through the enclosing ones, `max_hops` names at
// most (1: the type's own). Each part as metadata spells it ("List`1"), or as `part` rewrites it.
// Empty when the metadata has no such type.
std::string nested_type_name(clr::IMetaDataImport* import, clr::mdTypeDef type, int max_hops,
                             std::string (*part)(std::string) = nullptr);

}  // namespace clrscope
