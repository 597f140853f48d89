// GNU attributes written after a class's closing brace, moved to where NVRTC applies them to
// the class.
//
// nvcc compiles in GCC's dialect, where attributes right after the closing brace of a struct,
// class or union definition belong to the type, as if written after the class key:
//     typedef struct S_ { int a; char b; } __align__(16) S;  // S_ and S: alignof 16, sizeof 16
//     struct P { char a; int b; } __attribute__((packed));    // sizeof 5
// NVRTC's front end does not emulate GCC. It gives attributes there to the declarator, or to
// nothing: the typedef S gets alignment 16 but keeps sizeof 8 (so S[2] is 16 bytes, not 32,
// and struct S_ stays unaligned), and P is not packed ("attribute does not apply to any
// entity"). The same text then lays a struct out one way on the host (numpy, gcc, nvcc) and
// another way in an NVRTC kernel: arrays of it are read at the wrong offsets, silently.
// -std and the other options change nothing about it, and NVRTC has no GCC mode.
//
// So the NVRTC path rewrites the source before compiling it: such attributes move to just
// after the class key (`typedef struct __align__(16) S_ { ... } S;`), where NVRTC and GCC
// both apply them to the type, giving nvcc's layout. Moved are `__attribute__((...))`,
// `__align__(...)` and the macros the source defines as nothing but those (grunnur's
// `#define ALIGN(bytes) __align__(bytes)`); each definition of such a name in the source must
// be one, since #if is not evaluated. Other text after the brace (declarators, `__device__`,
// C++11 `[[...]]` attributes, which GCC and NVRTC both ignore there) stays, and so does all
// text in comments, literals and directives. Every line keeps its number. Not rewritten:
// headers NVRTC reads from disk, and macros defined there.
#pragma once

#include <string>
#include <string_view>

namespace gpukit::rtc {

// `source` with each class's trailing GNU attributes moved after its class key, as above.
std::string place_class_attributes(std::string_view source);

}  // namespace gpukit::rtc
