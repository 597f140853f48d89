"""OpenCL images, as PyOpenCL's: formats, images made from numpy arrays, copies between images,
buffers and host memory (at odd origins, with pitches), fills, samplers and kernels that read
and write images, each checked against numpy; the results also hold on PyOpenCL itself
(GPUKIT_PYOPENCL_ORIGINAL=1)."""

import numpy as np
import pytest

from cl_either import ORIGINAL, cl, ctx, needs_device, queue  # noqa: F401  (ctx, queue: fixtures)

pytestmark = pytest.mark.opencl
mf = cl.mem_flags
rng = np.random.default_rng(17)


def test_image_formats_and_amd_topologies_are_small_value_types():
    rgba = cl.ImageFormat(cl.channel_order.RGBA, cl.channel_type.FLOAT)
    assert (rgba.channel_order, rgba.channel_data_type) == (cl.channel_order.RGBA, cl.channel_type.FLOAT)
    assert rgba == cl.ImageFormat(cl.channel_order.RGBA, cl.channel_type.FLOAT)
    assert rgba != cl.ImageFormat(cl.channel_order.RG, cl.channel_type.FLOAT)
    assert hash(rgba) == hash(cl.ImageFormat(cl.channel_order.RGBA, cl.channel_type.FLOAT))
    assert (rgba.channel_count, rgba.dtype_size, rgba.itemsize) == (4, 4, 16)
    assert cl.ImageFormat(cl.channel_order.RG, cl.channel_type.UNSIGNED_INT16).itemsize == 4
    assert not hasattr(rgba, "__dict__")
    topology = cl.DeviceTopologyAmd(3, 4, 5)
    assert (topology.bus, topology.device, topology.function) == (3, 4, 5)
    assert not hasattr(topology, "__dict__")


def _needs_images(ctx):
    if not ctx.devices[0].image_support:
        pytest.skip(f"{ctx.devices[0].name} has no image support")


def _image(ctx, flags, order, channel_type, shape, **kwargs):
    return cl.create_image(ctx, flags, cl.ImageFormat(order, channel_type), shape=shape, **kwargs)


@needs_device
def test_supported_formats_are_image_formats(ctx):
    _needs_images(ctx)
    formats = cl.get_supported_image_formats(ctx, mf.READ_ONLY, cl.mem_object_type.IMAGE2D)
    assert formats and all(isinstance(f, cl.ImageFormat) for f in formats)
    assert cl.ImageFormat(cl.channel_order.RGBA, cl.channel_type.FLOAT) in formats


@needs_device
def test_a_2d_box_round_trips_at_an_odd_origin_with_host_pitches(ctx, queue):
    _needs_images(ctx)
    image = _image(ctx, mf.READ_WRITE, cl.channel_order.R, cl.channel_type.FLOAT, (29, 13))
    assert image.shape == (29, 13) and (image.width, image.height) == (29, 13)
    assert image.element_size == 4 and image.format == cl.ImageFormat(cl.channel_order.R, cl.channel_type.FLOAT)
    whole = rng.random((13, 29), dtype=np.float32)
    cl.enqueue_copy(queue, image, whole, origin=(0, 0), region=(29, 13))
    # A 5 x 11 box at (x=3, y=4), read into rows 40 floats apart of a larger host array.
    box = np.zeros((5, 40), np.float32)
    cl.enqueue_copy(queue, box, image, origin=(3, 4), region=(11, 5), pitches=(40 * 4,))
    np.testing.assert_array_equal(box[:, :11], whole[4:9, 3:14])
    assert not box[:, 11:].any()
    # Written back elsewhere from a pitched host array.
    cl.enqueue_copy(queue, image, box, origin=(17, 7), region=(11, 5), pitches=(40 * 4,))
    expected = whole.copy()
    expected[7:12, 17:28] = whole[4:9, 3:14]
    back = np.empty_like(whole)
    cl.enqueue_copy(queue, back, image, origin=(0, 0), region=(29, 13))
    np.testing.assert_array_equal(back, expected)


@needs_device
def test_image_from_array_keeps_numpys_axes_reversed_and_channels_last(ctx, queue):
    _needs_images(ctx)
    volume = rng.random((3, 4, 5, 4), dtype=np.float32)  # PoCL makes 3D images of RGBA, not of RG
    image = cl.image_from_array(ctx, volume, 4)
    assert image.shape == (5, 4, 3) and image.type == cl.mem_object_type.IMAGE3D
    back = np.empty_like(volume)
    cl.enqueue_copy(queue, back, image, origin=(0, 0, 0), region=(5, 4, 3))
    np.testing.assert_array_equal(back, volume)
    pixels = rng.integers(0, 255, (6, 7, 4), dtype=np.uint8)
    normalised = cl.image_from_array(ctx, pixels, 4, norm_int=True)
    assert normalised.format == cl.ImageFormat(cl.channel_order.RGBA, cl.channel_type.UNORM_INT8)
    with pytest.raises(ValueError):
        cl.image_from_array(ctx, np.zeros((4, 6), np.float32)[:, ::2], 1)  # not C-contiguous


READ_2D = """
__kernel void read2d(__global float *dest, __read_only image2d_t src, sampler_t samp, int width)
{ int y = get_global_id(0), x = get_global_id(1);
  dest[y * width + x] = read_imagef(src, samp, (int2)(x, y)).x; }
__kernel void read3d(__global float4 *dest, __read_only image3d_t src, sampler_t samp)
{ int z = get_global_id(0), y = get_global_id(1), x = get_global_id(2);
  dest[(z * get_global_size(1) + y) * get_global_size(2) + x] = read_imagef(src, samp, (int4)(x, y, z, 0)); }
__kernel void scale(__read_only image2d_t src, __write_only image2d_t dst, sampler_t samp)
{ int2 p = (int2)(get_global_id(0), get_global_id(1));
  write_imagef(dst, p, 3.0f * read_imagef(src, samp, p)); }
"""


@needs_device
def test_kernels_read_images_through_samplers_and_write_images(ctx, queue):
    _needs_images(ctx)
    program = cl.Program(ctx, READ_2D).build()
    sampler = cl.Sampler(ctx, False, cl.addressing_mode.CLAMP_TO_EDGE, cl.filter_mode.NEAREST)
    assert sampler.get_info(cl.sampler_info.FILTER_MODE) == cl.filter_mode.NEAREST
    assert not sampler.get_info(cl.sampler_info.NORMALIZED_COORDS)
    flat = rng.random((33, 17), dtype=np.float32)
    image = cl.image_from_array(ctx, flat, 1)
    dest = cl.Buffer(ctx, mf.READ_WRITE, flat.nbytes)
    program.read2d(queue, flat.shape, None, dest, image, sampler, np.int32(17))
    out = np.empty_like(flat)
    cl.enqueue_copy(queue, out, dest)
    np.testing.assert_array_equal(out, flat)

    volume = rng.random((3, 4, 5, 4), dtype=np.float32)
    image3 = cl.image_from_array(ctx, volume, 4)
    dest3 = cl.Buffer(ctx, mf.READ_WRITE, volume.nbytes)
    program.read3d(queue, volume.shape[:3], None, dest3, image3, sampler)
    out3 = np.empty_like(volume)
    cl.enqueue_copy(queue, out3, dest3)
    np.testing.assert_array_equal(out3, volume)

    written = _image(ctx, mf.WRITE_ONLY, cl.channel_order.R, cl.channel_type.FLOAT, (17, 33))
    program.scale(queue, (17, 33), None, image, written, sampler)
    tripled = np.empty_like(flat)
    cl.enqueue_copy(queue, tripled, written, origin=(0, 0), region=(17, 33))
    np.testing.assert_allclose(tripled, 3 * flat, rtol=1e-6)


@needs_device
def test_copies_between_images_and_buffers_and_fills(ctx, queue):
    _needs_images(ctx)
    pixels = rng.integers(-1000, 1000, (9, 12, 4), dtype=np.int32)  # RGBA: PoCL has no RG images
    a = cl.image_from_array(ctx, pixels, 4)
    b = _image(ctx, mf.READ_WRITE, cl.channel_order.RGBA, cl.channel_type.SIGNED_INT32, (12, 9))
    cl.enqueue_fill_image(queue, b, np.array([7, -7, 0, 1], np.int32), (0, 0), (12, 9))
    cl.enqueue_copy(queue, b, a, src_origin=(2, 1), dest_origin=(5, 3), region=(4, 6))
    expected = np.empty_like(pixels)
    expected[...] = [7, -7, 0, 1]
    expected[3:9, 5:9] = pixels[1:7, 2:6]
    back = np.empty_like(pixels)
    cl.enqueue_copy(queue, back, b, origin=(0, 0), region=(12, 9))
    np.testing.assert_array_equal(back, expected)
    # Image to buffer at a byte offset, and back into another image.
    buf = cl.Buffer(ctx, mf.READ_WRITE, 16 + 4 * 6 * 16)
    cl.enqueue_copy(queue, buf, a, origin=(2, 1), region=(4, 6), offset=16)
    packed = np.empty(16 + 4 * 6 * 16, np.uint8)
    cl.enqueue_copy(queue, packed, buf)
    np.testing.assert_array_equal(packed[16:].view(np.int32).reshape(6, 4, 4), pixels[1:7, 2:6])
    c = _image(ctx, mf.READ_WRITE, cl.channel_order.RGBA, cl.channel_type.SIGNED_INT32, (4, 6))
    cl.enqueue_copy(queue, c, buf, offset=16, origin=(0, 0), region=(4, 6))
    small = np.empty((6, 4, 4), np.int32)
    cl.enqueue_copy(queue, small, c, origin=(0, 0), region=(4, 6))
    np.testing.assert_array_equal(small, pixels[1:7, 2:6])
    floats = _image(ctx, mf.READ_WRITE, cl.channel_order.RGBA, cl.channel_type.FLOAT, (3, 2))
    cl.enqueue_fill_image(queue, floats, np.array([0.5, 1.5, 2.5, 3.5], np.float32), (1, 0), (2, 2))
    filled = np.zeros((2, 3, 4), np.float32)
    cl.enqueue_copy(queue, filled, floats, origin=(1, 0), region=(2, 2), pitches=(3 * 16,))
    np.testing.assert_array_equal(filled[:, :2], np.broadcast_to([0.5, 1.5, 2.5, 3.5], (2, 2, 4)))


@needs_device
def test_image_mistakes_are_refused_before_opencl_sees_them(ctx, queue):
    _needs_images(ctx)
    image = _image(ctx, mf.READ_WRITE, cl.channel_order.R, cl.channel_type.FLOAT, (8, 8))
    small = np.zeros((4, 4), np.float32)
    with pytest.raises(cl.LogicError):
        cl.enqueue_copy(queue, small, image, origin=(6, 0), region=(4, 4))  # past the image's edge
    if ORIGINAL:
        return  # PyOpenCL 2026.1.4 reads an 8 x 8 region into the 4 x 4 array: past its end
    with pytest.raises(cl.LogicError, match="host memory at these pitches"):
        cl.enqueue_copy(queue, small, image, origin=(0, 0), region=(8, 8))
    with pytest.raises(cl.LogicError, match=r"not within the image of \(8, 8, 1\)"):
        cl.enqueue_copy(queue, small, image, origin=(6, 0), region=(4, 4))
    with pytest.raises(TypeError, match="dst_offset is not an argument of image copies"):
        cl.enqueue_copy(queue, small, image, origin=(0, 0), region=(4, 4), dst_offset=4)
    with pytest.raises(TypeError, match="origin is an argument of image copies"):
        cl.enqueue_copy(queue, small, cl.Buffer(ctx, mf.READ_WRITE, 64), origin=(0, 0))
    other = _image(ctx, mf.READ_WRITE, cl.channel_order.R, cl.channel_type.SIGNED_INT32, (8, 8))
    with pytest.raises(cl.LogicError, match="different formats"):
        cl.enqueue_copy(queue, other, image, src_origin=(0, 0), dest_origin=(0, 0), region=(2, 2))
    with pytest.raises(cl.LogicError, match="give shape"):
        cl.create_image(ctx, mf.READ_WRITE, image.format)
    with pytest.raises(cl.LogicError, match="pitches describe hostbuf"):
        cl.create_image(ctx, mf.READ_WRITE, image.format, shape=(4, 4), pitches=(64,))
    with pytest.raises(cl.LogicError, match="needs 256 bytes"):
        cl.create_image(ctx, mf.READ_ONLY | mf.COPY_HOST_PTR, image.format, shape=(8, 8), hostbuf=small)
    with pytest.raises(cl.LogicError, match="1D image arrays"):
        cl.create_image(ctx, mf.READ_WRITE, image.format, shape=(8, 3), is_array=True)
    with pytest.raises(cl.LogicError, match="expected an image"):
        program = cl.Program(ctx, READ_2D).build()
        program.read2d(
            queue,
            (1, 1),
            None,
            cl.Buffer(ctx, mf.READ_WRITE, 4),
            cl.Buffer(ctx, mf.READ_WRITE, 4),
            cl.Sampler(ctx, False, cl.addressing_mode.NONE, cl.filter_mode.NEAREST),
            np.int32(1),
        )
