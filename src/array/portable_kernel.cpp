#include "portable_kernel.hpp"

namespace gpukit::array::detail {

const char* language_words(kernel_language language) noexcept {
    if (language == kernel_language::opencl)
        return "#define GK_KERNEL __kernel\n"
               "#define GK_GLOBAL __global\n"
               "#define GK_LOCAL __local\n"
               "#define GK_BARRIER() barrier(CLK_LOCAL_MEM_FENCE)\n"
               "#define GK_LID ((int)get_local_id(0))\n"
               "#define GK_GROUP ((long)get_group_id(0))\n"
               "#define GK_GID ((long)get_global_id(0))\n"
               "#define GK_GSIZE ((long)get_global_size(0))\n";
    return "#define GK_KERNEL extern \"C\" __global__\n"
           "#define GK_GLOBAL\n"
           "#define GK_LOCAL __shared__\n"
           "#define GK_BARRIER() __syncthreads()\n"
           "#define GK_LID ((int)threadIdx.x)\n"
           "#define GK_GROUP ((long)blockIdx.x)\n"
           "#define GK_GID ((long)blockIdx.x * blockDim.x + threadIdx.x)\n"
           "#define GK_GSIZE ((long)gridDim.x * blockDim.x)\n"
           "typedef unsigned char uchar;\n"
           "typedef unsigned long ulong;\n";
}

void declare_memory(text_builder& out, const std::string& type, const std::string& name, kernel_language language) {
    if (language == kernel_language::cuda)
        out << type << "* " << name << ", ";
    else
        out << "__global " << type << "* gk_p_" << name << ", long gk_f_" << name << ", ";
}

void bind_memory(text_builder& out, const std::string& type, const std::string& name, kernel_language language) {
    if (language == kernel_language::opencl)
        out << "    __global " << type << "* " << name << " = (__global " << type << "*)((__global char*)gk_p_" << name
            << " + gk_f_" << name << ");\n";
}

}  // namespace gpukit::array::detail
