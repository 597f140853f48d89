"""PyCUDA's ``pycuda.compyte`` (the helpers PyCUDA shares with PyOpenCL): ``compyte.array``'s
stride and dtype helpers. Its dtype registry (``compyte.dtypes``) is ``pycuda.tools``'s
get_or_register_dtype / dtype_to_ctype / parse_c_arg in gpukit."""
