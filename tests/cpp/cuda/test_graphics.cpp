// OpenGL interop on a GPU. The life of registrations and mappings, with the driver's graphics
// entries replaced by fakes (api_override): what misuse gets, what keeps what alive, what the
// destructors release and report. Then real OpenGL objects in a headless context through EGL,
// loaded at run time like tests/python/egl_context.py (skipped, with the reason, where EGL or
// NVIDIA's OpenGL driver is missing): a kernel writes a buffer through its mapped pointer and
// OpenGL reads it; copies move a texture's texels through its mapped array both ways.
#include "gpu_test.hpp"

#include "gpukit/core/api_override.hpp"
#include "gpukit/core/error.hpp"
#include "gpukit/cuda/graphics.hpp"
#include "gpukit/cuda/launch.hpp"
#include "gpukit/cuda/module.hpp"
#include "gpukit/cuda/structured_copy.hpp"
#include "gpukit/rtc/program.hpp"

#include <dlfcn.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <random>
#include <string>
#include <vector>

namespace {

using namespace gpukit;
using namespace gpukit::cuda;
using GraphicsInterop = gpukit::testing::gpu_test;

// --- The driver's graphics entries as fakes -------------------------------------------------

CUgraphicsResource const fake_resource = reinterpret_cast<CUgraphicsResource>(std::uintptr_t{0x6a11});
int maps = 0, unmaps = 0, unregisters = 0;
CUresult unregister_result = CUDA_SUCCESS;

CUresult fake_register_buffer(CUgraphicsResource* resource, unsigned int, unsigned int) {
    *resource = fake_resource;
    return CUDA_SUCCESS;
}
CUresult fake_register_image(CUgraphicsResource* resource, unsigned int, unsigned int, unsigned int) {
    *resource = fake_resource;
    return CUDA_SUCCESS;
}
CUresult fake_map(unsigned int, CUgraphicsResource*, CUstream) {
    ++maps;
    return CUDA_SUCCESS;
}
CUresult fake_unmap(unsigned int, CUgraphicsResource*, CUstream) {
    ++unmaps;
    return CUDA_SUCCESS;
}
CUresult fake_pointer(CUdeviceptr* address, std::size_t* size, CUgraphicsResource) {
    *address = 0x1000;
    *size = 256;
    return CUDA_SUCCESS;
}
CUresult fake_array(CUarray* array, CUgraphicsResource, unsigned int, unsigned int) {
    *array = reinterpret_cast<CUarray>(std::uintptr_t{0xa77a});
    return CUDA_SUCCESS;
}
CUresult fake_unregister(CUgraphicsResource) {
    ++unregisters;
    return unregister_result;
}

// Every graphics entry of the driver's table replaced while it lives.
struct fake_entries {
    driver_api& table = mutable_api();
    api_override<decltype(table.cuGraphicsGLRegisterBuffer)> register_buffer{table.cuGraphicsGLRegisterBuffer,
                                                                             &fake_register_buffer};
    api_override<decltype(table.cuGraphicsGLRegisterImage)> register_image{table.cuGraphicsGLRegisterImage,
                                                                           &fake_register_image};
    api_override<decltype(table.cuGraphicsMapResources)> map{table.cuGraphicsMapResources, &fake_map};
    api_override<decltype(table.cuGraphicsUnmapResources)> unmap{table.cuGraphicsUnmapResources, &fake_unmap};
    api_override<decltype(table.cuGraphicsResourceGetMappedPointer)> pointer{table.cuGraphicsResourceGetMappedPointer,
                                                                             &fake_pointer};
    api_override<decltype(table.cuGraphicsSubResourceGetMappedArray)> array{table.cuGraphicsSubResourceGetMappedArray,
                                                                            &fake_array};
    api_override<decltype(table.cuGraphicsUnregisterResource)> unregister{table.cuGraphicsUnregisterResource,
                                                                          &fake_unregister};
};

// A test with the fakes in place (made once the GPU test set up: the table needs a driver), the
// counts started afresh.
class GraphicsFakes : public GraphicsInterop {
protected:
    void SetUp() override {
        GraphicsInterop::SetUp();
        if (IsSkipped())
            return;
        fakes.emplace();
        maps = unmaps = unregisters = 0;
        unregister_result = CUDA_SUCCESS;
    }
    std::optional<fake_entries> fakes;
};

TEST_F(GraphicsFakes, MisuseIsALogicError) {
    auto buffer = std::make_shared<graphics_resource>(graphics_resource::register_gl_buffer(7));
    EXPECT_EQ(buffer->gl_handle(), 7u);
    graphics_mapping mapping = graphics_mapping::map(buffer);
    EXPECT_TRUE(buffer->is_mapped());
    EXPECT_THROW(graphics_mapping::map(buffer), logic_error);  // mapped already
    EXPECT_THROW(buffer->unregister(), logic_error);           // mapped
    EXPECT_THROW(mapping.array(0, 0), logic_error);            // a buffer has no arrays
    EXPECT_EQ(mapping.pointer().address, 0x1000u);
    EXPECT_EQ(mapping.pointer().capacity.value_or(0), 256u);
    mapping.unmap();
    EXPECT_FALSE(buffer->is_mapped());
    EXPECT_THROW(mapping.unmap(), logic_error);
    EXPECT_THROW(mapping.pointer(), logic_error);
    EXPECT_EQ(maps, 1);
    EXPECT_EQ(unmaps, 1);

    buffer->unregister();
    buffer->unregister();  // again: nothing
    EXPECT_EQ(unregisters, 1);
    EXPECT_THROW(graphics_mapping::map(buffer), logic_error);  // unregistered
    EXPECT_THROW(graphics_mapping::map(nullptr), logic_error);

    auto image = std::make_shared<graphics_resource>(graphics_resource::register_gl_image(8, 0x0DE1));
    graphics_mapping image_mapping = graphics_mapping::map(image);
    EXPECT_THROW(image_mapping.pointer(), logic_error);  // an image has no pointer
    const cuda::array array = image_mapping.array(0, 0);
    EXPECT_TRUE(array.is_borrowed());
    graphics_mapping moved = std::move(image_mapping);
    EXPECT_THROW(image_mapping.unmap(), logic_error);  // moved from
    EXPECT_THROW(image_mapping.resource(), logic_error);
    EXPECT_EQ(array.handle(), reinterpret_cast<CUarray>(std::uintptr_t{0xa77a}));
    EXPECT_EQ(array.owner(), image->owner());
    moved.unmap();
    EXPECT_THROW(array.handle(), logic_error);  // its mapping was unmapped
    EXPECT_THROW(array.owner(), logic_error);
    copy_location at;
    EXPECT_THROW(at.set_array(array), logic_error);
}

TEST_F(GraphicsFakes, FreeingAMappedImagesArrayLetsGoOfItOnly) {
    auto image = std::make_shared<graphics_resource>(graphics_resource::register_gl_image(8, 0x0DE1));
    graphics_mapping mapping = graphics_mapping::map(image);
    cuda::array array = mapping.array(0, 0);
    array.free();  // CUDA owns the array: nothing destroyed, nothing unmapped
    EXPECT_TRUE(array.is_freed());
    EXPECT_THROW(array.handle(), logic_error);
    EXPECT_TRUE(mapping.is_mapped());
    EXPECT_EQ(mapping.array(0, 0).handle(), reinterpret_cast<CUarray>(std::uintptr_t{0xa77a}));
    mapping.unmap();
    EXPECT_EQ(unmaps, 1);
}

TEST_F(GraphicsFakes, AMappingKeepsItsResourceAndItsArraysKeepItMapped) {
    auto image = std::make_shared<graphics_resource>(graphics_resource::register_gl_image(8, 0x0DE1));
    std::weak_ptr<graphics_resource> watch = image;
    std::optional<cuda::array> array;
    {
        graphics_mapping mapping = graphics_mapping::map(std::move(image));
        array = mapping.array(0, 0);
    }
    EXPECT_FALSE(watch.expired());  // the array holds the mapping, the mapping the resource
    EXPECT_TRUE(watch.lock()->is_mapped());
    EXPECT_EQ(unmaps, 0);
    array.reset();  // the last holder: unmapped, then unregistered
    EXPECT_TRUE(watch.expired());
    EXPECT_EQ(unmaps, 1);
    EXPECT_EQ(unregisters, 1);
}

TEST_F(GraphicsFakes, AFailedReleaseIsReportedNotThrown) {
    static std::string warning;
    set_cleanup_warning_hook([](const std::string& message) { warning = message; });
    unregister_result = CUDA_ERROR_INVALID_HANDLE;
    { graphics_resource::register_gl_buffer(7); }
    set_cleanup_warning_hook(nullptr);
    EXPECT_NE(warning.find("cuGraphicsUnregisterResource"), std::string::npos) << warning;
    // unregister() throws instead and keeps the registration, which the destructor then retries.
    graphics_resource kept = graphics_resource::register_gl_buffer(7);
    EXPECT_THROW(kept.unregister(), logic_error);
    EXPECT_FALSE(kept.is_unregistered());
    unregister_result = CUDA_SUCCESS;
}

// --- Real OpenGL objects through EGL ---------------------------------------------------------

// A headless OpenGL context of NVIDIA's driver through EGL, loaded at run time: the first of
// the EGL devices (EGL_EXT_platform_device), then EGL_DEFAULT_DISPLAY, whose desktop OpenGL
// context over a 1x1 pbuffer becomes current and is NVIDIA's. `why` says why there is none.
class egl_gl {
public:
    using EGLint = std::int32_t;

    egl_gl() {
        egl_ = dlopen("libEGL.so.1", RTLD_NOW | RTLD_LOCAL);
        gl_ = dlopen("libOpenGL.so.0", RTLD_NOW | RTLD_LOCAL);
        if (!gl_)
            gl_ = dlopen("libGL.so.1", RTLD_NOW | RTLD_LOCAL);
        if (!egl_ || !gl_) {
            why = "no EGL: libEGL.so.1 and libOpenGL.so.0 (or libGL.so.1) cannot be loaded";
            return;
        }
        auto get_proc_address = egl<void* (*)(const char*)>("eglGetProcAddress");
        auto query_devices =
            reinterpret_cast<unsigned (*)(EGLint, void**, EGLint*)>(get_proc_address("eglQueryDevicesEXT"));
        auto platform_display =
            reinterpret_cast<void* (*)(unsigned, void*, const EGLint*)>(get_proc_address("eglGetPlatformDisplayEXT"));
        std::vector<void*> displays;
        void* devices[16];
        EGLint count = 0;
        if (query_devices && platform_display && query_devices(16, devices, &count))
            for (EGLint i = 0; i < count; ++i)
                displays.push_back(platform_display(0x313F /* EGL_PLATFORM_DEVICE_EXT */, devices[i], nullptr));
        displays.push_back(egl<void* (*)(void*)>("eglGetDisplay")(nullptr));
        why = "no EGL display makes an OpenGL context of NVIDIA's driver current";
        for (void* display : displays)
            if (display && make_current(display)) {
                why.clear();
                return;
            }
    }
    ~egl_gl() {
        if (display_)
            release(display_);
    }
    egl_gl(const egl_gl&) = delete;
    egl_gl& operator=(const egl_gl&) = delete;

    std::string why;  // empty once a context of NVIDIA's driver is current

    // The OpenGL entry point `name` as a `Fn`.
    template <class Fn>
    Fn gl(const char* name) const {
        return reinterpret_cast<Fn>(dlsym(gl_, name));
    }

private:
    template <class Fn>
    Fn egl(const char* name) const {
        return reinterpret_cast<Fn>(dlsym(egl_, name));
    }

    bool make_current(void* display) {
        if (!egl<unsigned (*)(void*, EGLint*, EGLint*)>("eglInitialize")(display, nullptr, nullptr))
            return false;
        constexpr EGLint none = 0x3038;
        const EGLint config_attributes[] = {0x3033 /* SURFACE_TYPE */, 0x0001 /* PBUFFER_BIT */,
                                            0x3040 /* RENDERABLE_TYPE */, 0x0008 /* OPENGL_BIT */, none};
        const EGLint pbuffer_attributes[] = {0x3057 /* WIDTH */, 1, 0x3056 /* HEIGHT */, 1, none};
        void* config = nullptr;
        EGLint configs = 0;
        void* surface = nullptr;
        void* context = nullptr;
        if (egl<unsigned (*)(unsigned)>("eglBindAPI")(0x30A2 /* EGL_OPENGL_API */) &&
            egl<unsigned (*)(void*, const EGLint*, void**, EGLint, EGLint*)>(
                "eglChooseConfig")(display, config_attributes, &config, 1, &configs) &&
            configs == 1)
            surface = egl<void* (*)(void*, void*, const EGLint*)>("eglCreatePbufferSurface")(display, config,
                                                                                             pbuffer_attributes);
        if (surface)
            context = egl<void* (*)(void*, void*, void*, const EGLint*)>("eglCreateContext")(display, config, nullptr,
                                                                                             nullptr);
        if (context &&
            egl<unsigned (*)(void*, void*, void*, void*)>("eglMakeCurrent")(display, surface, surface, context)) {
            const auto* vendor = gl<const unsigned char* (*)(unsigned)>("glGetString")(0x1F00 /* GL_VENDOR */);
            if (vendor && std::string(reinterpret_cast<const char*>(vendor)).find("NVIDIA") != std::string::npos) {
                display_ = display;
                return true;
            }
        }
        release(display);
        return false;
    }

    // Makes no context current and lets go of everything made on `display`.
    void release(void* display) const {
        egl<unsigned (*)(void*, void*, void*, void*)>("eglMakeCurrent")(display, nullptr, nullptr, nullptr);
        egl<unsigned (*)(void*)>("eglTerminate")(display);
    }

    void* egl_ = nullptr;
    void* gl_ = nullptr;
    void* display_ = nullptr;
};

constexpr unsigned GL_ARRAY_BUFFER = 0x8892, GL_DYNAMIC_DRAW = 0x88E8, GL_TEXTURE_2D = 0x0DE1, GL_RGBA8 = 0x8058,
                   GL_RGBA = 0x1908, GL_UNSIGNED_BYTE = 0x1401, GL_PACK_ALIGNMENT = 0x0D05,
                   GL_TEXTURE_MIN_FILTER = 0x2801, GL_NEAREST = 0x2600;

class GraphicsEgl : public GraphicsInterop {
protected:
    void SetUp() override {
        GraphicsInterop::SetUp();
        if (!IsSkipped() && !egl.why.empty())
            GTEST_SKIP() << egl.why;
    }
    egl_gl egl;
};

TEST_F(GraphicsEgl, AKernelWritesABufferThatOpenGLReads) {
    const int n = 4099;
    std::vector<std::uint32_t> data(n);
    std::mt19937 engine(5);
    for (auto& v : data)
        v = engine() % (1u << 20);
    unsigned name = 0;
    egl.gl<void (*)(int, unsigned*)>("glGenBuffers")(1, &name);
    auto bind = egl.gl<void (*)(unsigned, unsigned)>("glBindBuffer");
    bind(GL_ARRAY_BUFFER, name);
    egl.gl<void (*)(unsigned, std::ptrdiff_t, const void*, unsigned)>(
        "glBufferData")(GL_ARRAY_BUFFER, n * sizeof(std::uint32_t), data.data(), GL_DYNAMIC_DRAW);
    bind(GL_ARRAY_BUFFER, 0);

    auto buffer = std::make_shared<graphics_resource>(graphics_resource::register_gl_buffer(name));
    graphics_mapping mapping = graphics_mapping::map(buffer);
    const device_pointer p = mapping.pointer();
    ASSERT_EQ(p.capacity.value_or(0), n * sizeof(std::uint32_t));
    const module m = module::from_image(rtc::compile(R"(
extern "C" __global__ void affine(unsigned int* p, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) p[i] = 3 * p[i] + 7;
})")
                                            .image());
    launch(m.get_function("affine"), launch_config().grid({(n + 255) / 256}).block({256}), p.address, n);
    mapping.unmap();

    std::vector<std::uint32_t> back(n);
    bind(GL_ARRAY_BUFFER, name);
    egl.gl<void (*)(unsigned, std::ptrdiff_t, std::ptrdiff_t, void*)>(
        "glGetBufferSubData")(GL_ARRAY_BUFFER, 0, n * sizeof(std::uint32_t), back.data());
    bind(GL_ARRAY_BUFFER, 0);
    for (int i = 0; i < n; ++i)
        ASSERT_EQ(back[i], 3 * data[i] + 7) << "element " << i;
    buffer->unregister();
    egl.gl<void (*)(int, const unsigned*)>("glDeleteBuffers")(1, &name);
}

TEST_F(GraphicsEgl, TexelsMoveThroughTheMappedArrayBothWays) {
    const int width = 37, height = 21;
    std::vector<std::uint8_t> image(width * height * 4), other(image.size()), back(image.size());
    std::mt19937 engine(6);
    for (auto& v : image)
        v = static_cast<std::uint8_t>(engine());
    for (auto& v : other)
        v = static_cast<std::uint8_t>(engine());
    unsigned name = 0;
    egl.gl<void (*)(int, unsigned*)>("glGenTextures")(1, &name);
    auto bind = egl.gl<void (*)(unsigned, unsigned)>("glBindTexture");
    bind(GL_TEXTURE_2D, name);
    egl.gl<void (*)(unsigned, unsigned, int)>("glTexParameteri")(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GL_NEAREST);
    egl.gl<void (*)(unsigned, int, int, int, int, int, unsigned, unsigned, const void*)>(
        "glTexImage2D")(GL_TEXTURE_2D, 0, GL_RGBA8, width, height, 0, GL_RGBA, GL_UNSIGNED_BYTE, other.data());
    bind(GL_TEXTURE_2D, 0);

    auto texture = std::make_shared<graphics_resource>(graphics_resource::register_gl_image(name, GL_TEXTURE_2D));
    {
        graphics_mapping mapping = graphics_mapping::map(texture);
        const cuda::array array = mapping.array(0, 0);
        const CUDA_ARRAY3D_DESCRIPTOR d = array.descriptor_3d();
        EXPECT_EQ(d.Width, static_cast<std::size_t>(width));
        EXPECT_EQ(d.Height, static_cast<std::size_t>(height));
        EXPECT_EQ(d.Format, CU_AD_FORMAT_UNSIGNED_INT8);
        EXPECT_EQ(d.NumChannels, 4u);
        memcpy_atoh(back.data(), array, 0, back.size());  // what OpenGL wrote
        EXPECT_EQ(back, other);
        // A structured copy of a box of it (what Memcpy2D does): rows 5..11, texels 3..19.
        std::vector<std::uint8_t> box(7 * 17 * 4);
        copy_location from, to;
        from.set_array(array);
        from.x_in_bytes = 3 * 4;
        from.y = 5;
        to.set_host(box.data(), box.size());
        memcpy_2d(from, to, copy_extent{17 * 4, 7, 1}, true);
        for (int row = 0; row < 7; ++row)
            for (int byte = 0; byte < 17 * 4; ++byte)
                ASSERT_EQ(box[row * 17 * 4 + byte], other[((row + 5) * width + 3) * 4 + byte]) << row << ", " << byte;
        memcpy_htoa(array, 0, image.data(), image.size());
        EXPECT_THROW(memcpy_htoa(array, 3, image.data(), 4), logic_error);  // not whole rows
    }                                                                       // unmapped here
    EXPECT_FALSE(texture->is_mapped());
    egl.gl<void (*)(unsigned, int)>("glPixelStorei")(GL_PACK_ALIGNMENT, 1);
    bind(GL_TEXTURE_2D, name);
    egl.gl<void (*)(unsigned, int, unsigned, unsigned, void*)>("glGetTexImage")(GL_TEXTURE_2D, 0, GL_RGBA,
                                                                                GL_UNSIGNED_BYTE, back.data());
    bind(GL_TEXTURE_2D, 0);
    EXPECT_EQ(back, image);
    texture->unregister();
    egl.gl<void (*)(int, const unsigned*)>("glDeleteTextures")(1, &name);
}

}  // namespace
