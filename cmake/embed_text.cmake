# cmake -DIN=<file> -DOUT=<file> -P embed_text.cmake: writes the text of IN into OUT as a C++
# raw string literal, for source text kept in a file of its own (CUDA C the library puts
# into generated kernels) and compiled into the library as a string.
file(READ "${IN}" text)
file(WRITE "${OUT}.tmp" "// Generated from ${IN} by cmake/embed_text.cmake.\nR\"gk_embedded(${text})gk_embedded\"\n")
file(RENAME "${OUT}.tmp" "${OUT}")
