// The CUDA driver's two OpenGL entry points, declared as cudaGL.h declares them but without
// OpenGL's headers: cudaGL.h includes <GL/gl.h>, which gpukit's build must not need, for its
// GLuint and GLenum alone, both unsigned int. A program that includes cudaGL.h as well sees
// the same declarations twice, which C++ allows. api.cpp checks them against
// cudaGLTypedefs.h where OpenGL's headers are installed.
#pragma once

#include <cuda.h>

extern "C" {

// Registers the OpenGL buffer object `buffer` with CUDA (cudaGL.h).
CUresult CUDAAPI cuGraphicsGLRegisterBuffer(CUgraphicsResource* pCudaResource, unsigned int buffer, unsigned int Flags);
// Registers the OpenGL texture or renderbuffer `image` of kind `target` with CUDA (cudaGL.h).
CUresult CUDAAPI cuGraphicsGLRegisterImage(CUgraphicsResource* pCudaResource, unsigned int image, unsigned int target,
                                           unsigned int Flags);
}
