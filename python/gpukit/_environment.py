"""Every environment variable gpukit reads (its C++ core and its Python package), with what
it does: the one list that ``python -m gpukit info`` reports and docs/command-line.md
describes. tests/python/test_info.py checks it against the code, so a variable read
anywhere in src/, include/ or python/ must be added here."""

VARIABLES = {
    # Devices
    "CUDA_DEVICE": "the CUDA device number make_default_context and autoinit use",
    "HOME": "where ~/.cuda-device (the device when CUDA_DEVICE is not set) and ~/.cache/gpukit (the compile cache) are",
    # Compiling
    "GPUKIT_COMPILER": "the compiler when a call passes compiler=None: auto, nvrtc or nvcc",
    "GPUKIT_DEFAULT_NVCC_FLAGS": "the options when a call passes options=None",
    "PYCUDA_DEFAULT_NVCC_FLAGS": "the same as GPUKIT_DEFAULT_NVCC_FLAGS, when that is not set",
    "GPUKIT_CACHE_DIR": "the compile cache's directory",
    "PYCUDA_CACHE_DIR": "the same as GPUKIT_CACHE_DIR, when that is not set",
    "XDG_CACHE_HOME": "the compile cache is $XDG_CACHE_HOME/gpukit when no cache directory is set",
    "GPUKIT_DISABLE_CACHE": "set to anything: no compile cache",
    "GPUKIT_CACHE_SIZE": "the most the compile cache may hold (4096, 512M, 2G; 0: no limit; default 1G)",
    "PYCUDA_DISABLE_CACHE": "the same as GPUKIT_DISABLE_CACHE",
    "CUDA_PATH": "the CUDA toolkit first looked in: headers for NVRTC, nvcc, NVRTC, nvJitLink, device libraries",
    "CUDA_HOME": "the CUDA toolkit looked in after CUDA_PATH",
    "PATH": "where nvcc is looked for; its toolkit's headers are used when CUDA_PATH and CUDA_HOME are not set",
    "LD_LIBRARY_PATH": "the directories NVRTC is looked for in first",
    "TMPDIR": "where nvcc runs (a fresh directory for each compilation)",
    "GPUKIT_NVCC_TIMEOUT": "seconds an nvcc run may take before it and its programs are killed (600; 0: no limit)",
    "GPUKIT_NVCC_MEMORY_LIMIT": "MiB of address space nvcc and each program it starts may use (0: no limit)",
    # Arrays
    "GPUKIT_FUSION": "0: chained gpuarray operators are not fused into one kernel",
    "GPUKIT_CUDA_ARRAY_INTERFACE_SYNC": "0: no wait for the producer's stream when taking __cuda_array_interface__",
    # OpenCL
    "GPUKIT_CL_CTX": "the OpenCL device create_some_context() picks (platform:device)",
    "GPUKIT_CL_TEST": "the OpenCL devices the tests run on, and create_some_context()'s when GPUKIT_CL_CTX is not set",
    "PYOPENCL_TEST": "the same as GPUKIT_CL_TEST, for the tests and create_some_context(), when that is not set",
    "PYOPENCL_CTX": "PyOpenCL's choice of create_some_context()'s devices (platform:device,...), after the three above",
    "GPUKIT_LEAK_WARNINGS": "1: nanobind's report of gpukit objects still alive at exit (the test suite sets it)",
    # Benchmarks
    "GPUKIT_BENCH_KERNELS": "how many ElementwiseKernels the bench case small_add_1000_kernels compiles (1000)",
    # One process per GPU (gpukit.bench.ranks): set by its launcher for each rank
    "GPUKIT_RENDEZVOUS": "the directory where the ranks of a gpukit.bench.ranks launch meet",
    "GPUKIT_RANK": "this process's rank in a gpukit.bench.ranks launch",
    "GPUKIT_WORLD_SIZE": "the number of ranks of a gpukit.bench.ranks launch",
    # ... and by MPI launchers, which tell gpukit.bench.ranks.world() to use MPI
    "OMPI_COMM_WORLD_SIZE": "set by Open MPI's launcher: the process runs under MPI",
    "PMI_SIZE": "set by MPICH's (Hydra) and Slurm's launchers: the process runs under MPI",
    "PMIX_RANK": "set by PMIx launchers: the process runs under MPI",
    "MPI_LOCALNRANKS": "set by MPICH's launcher: the process runs under MPI",
}
