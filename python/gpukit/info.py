"""``python -m gpukit info``: what gpukit sees on this machine, CUDA and OpenCL."""
import gpukit
import gpukit.driver as drv


def _cuda_lines():
    if not drv.driver_available():
        yield "CUDA: no NVIDIA driver on this machine (libcuda.so.1 not found); CUDA features are unavailable"
        return
    version = drv.get_driver_version()
    yield f"CUDA driver: {version // 1000}.{(version % 1000) // 10}; gpukit built against CUDA " + \
        ".".join(map(str, drv.get_version()[:2]))
    count = drv.Device.count()
    if count == 0:
        yield "CUDA devices: none"
    for i in range(count):
        dev = drv.Device(i)
        major, minor = dev.compute_capability()
        yield (f"  [{i}] {dev.name()}: compute capability {major}.{minor}, "
               f"{dev.total_memory() / 2**30:.1f} GiB, {dev.multiprocessor_count} multiprocessors, "
               f"SM clock {dev.clock_rate / 1000:.0f} MHz, memory clock {dev.memory_clock_rate / 1000:.0f} MHz, "
               f"PCI bus id {dev.pci_bus_id()}")


def _opencl_lines():
    try:
        from gpukit import cl
    except ImportError as e:
        yield f"OpenCL: the OpenCL backend could not be imported ({e})"
        return
    try:
        platforms = cl.get_platforms()
    except cl.Error as e:
        yield f"OpenCL: unavailable ({e})"
        return
    if not platforms:
        yield "OpenCL: no platform installed"
    for p, platform in enumerate(platforms):
        yield f"OpenCL platform [{p}] {platform.name} ({platform.vendor}, {platform.version})"
        for d, device in enumerate(platform.get_devices()):
            yield (f"  [{p}:{d}] {device.name}: {device.max_compute_units} compute units, "
                   f"{device.global_mem_size / 2**30:.1f} GiB")


def print_info():
    print(f"gpukit {gpukit.VERSION_TEXT}")
    for line in _cuda_lines():
        print(line)
    for line in _opencl_lines():
        print(line)
