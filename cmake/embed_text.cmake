# cmake -DIN=<file> -DOUT=<file.cpp> -DSYMBOL=<name> -P embed_text.cmake
# Writes OUT defining dualjit::embedded::SYMBOL, a NUL-terminated char array holding IN's text,
# for a header that the program compiles and also hands to NVRTC at run time.
file(READ ${IN} text)
string(FIND "${text}" ")dualjit_embedded\"" clash)
if(NOT clash EQUAL -1)
  message(FATAL_ERROR "${IN} contains the raw string's delimiter")
endif()
file(WRITE ${OUT}.tmp
     "// Generated from ${IN} by cmake/embed_text.cmake; do not edit.\n"
     "namespace dualjit::embedded {\n"
     "extern const char ${SYMBOL}[];\n"
     "const char ${SYMBOL}[] = R\"dualjit_embedded(${text})dualjit_embedded\";\n"
     "}  // namespace dualjit::embedded\n")
file(COPY_FILE ${OUT}.tmp ${OUT} ONLY_IF_DIFFERENT)
file(REMOVE ${OUT}.tmp)
