"""gpukit.driver.Device on a real GPU."""

import pytest

import gpukit.driver as drv

pytestmark = pytest.mark.gpu


def test_count_name_memory():
    assert drv.Device.count() >= 1
    dev = drv.Device(0)
    assert isinstance(dev.name(), str) and dev.name()
    assert dev.total_memory() > 1 << 30
    major, minor = dev.compute_capability()
    assert major >= 5 and minor >= 0
    assert len(dev.uuid()) == 16
    assert int(dev) == 0


def test_attributes_as_properties():
    dev = drv.Device(0)
    assert dev.warp_size == 32
    assert dev.clock_rate == dev.get_attribute(drv.device_attribute.CLOCK_RATE)
    assert dev.multiprocessor_count > 0
    attrs = dev.get_attributes()
    assert attrs[drv.device_attribute.WARP_SIZE] == 32
    assert all(isinstance(k, drv.device_attribute) for k in attrs)
    assert len(attrs) > 100
    with pytest.raises(AttributeError):
        dev.no_such_attribute
    with pytest.raises(AttributeError):
        dev.WARP_SIZE  # properties are lower-case, as in PyCUDA


def test_pci_bus_id_constructor_and_equality():
    dev = drv.Device(0)
    same = drv.Device(dev.pci_bus_id())
    assert same == dev and not (same != dev)
    assert hash(same) == hash(dev)
    assert {dev: 1}[same] == 1
    assert dev != "0"
    with pytest.raises(drv.Error, match="PCI bus id"):
        drv.Device("not-a-bus-id")


@pytest.mark.parametrize("bad", [-1, 1000])
def test_out_of_range_device_numbers(bad):
    with pytest.raises(drv.LogicError, match="out of range"):
        drv.Device(bad)


def test_driver_version_and_init():
    drv.init()
    assert drv.get_driver_version() >= 12000
    with pytest.raises(drv.LogicError, match="flags=0"):
        drv.init(1)


def test_can_access_peer():
    dev = drv.Device(0)
    assert dev.can_access_peer(dev) is False
    if drv.Device.count() > 1:
        assert isinstance(dev.can_access_peer(drv.Device(1)), bool)
