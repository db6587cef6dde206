"""CDMA command encoder for the tests, written from the descriptor layouts of
docs/sg2260-commands.md section 13.2 (bit offsets little-endian), sharing no code with tilefw's
builders: what these bytes mean is checked against what tilefw decodes, validates and runs."""

import struct

SEND, READ, WRITE, GENERAL, RECV, SYS = 0, 1, 2, 3, 4, 7
FP16, FP32, INT32, BF16 = 1, 2, 4, 5
ADD, MAX, MIN, MUL = 4, 2, 3, 1
TX_SEND, TX_WAIT, RX_SEND, RX_WAIT = 3, 4, 5, 6


def put(buf, bit, width, value):
    for i in range(width):
        if (value >> i) & 1:
            buf[(bit + i) // 8] |= 1 << ((bit + i) % 8)


def _header(buf, cmd_type, fmt=0, stride_enable=1):
    put(buf, 1, 1, stride_enable)
    put(buf, 4, 4, cmd_type)
    put(buf, 12, 4, fmt)


def send(addr, fmt, elements, psum=False):
    """A contiguous send of `elements` elements from `addr` (45-bit, tag in bits 44:40)."""
    b = bytearray(32)
    _header(b, SEND, fmt)
    put(b, 16, 13, addr >> 32)
    put(b, 29, 3, 1 if psum else 0)
    put(b, 32, 32, elements)  # nstride
    put(b, 64, 32, elements)  # cstride
    put(b, 96, 32, elements)  # hstride
    for bit in (128, 144):
        put(b, bit, 16, 1)
    put(b, 160, 32, 1)
    put(b, 192, 32, elements)
    put(b, 224, 32, addr & 0xFFFFFFFF)
    return bytes(b)


def recv(addr, fmt, elements, reduce_op=0):
    b = bytearray(32)
    put(b, 1, 1, 1)
    put(b, 4, 4, RECV)
    put(b, 11, 3, fmt)  # the cmodel's data format: firmware always writes it
    put(b, 16, 13, addr >> 32)
    put(b, 29, 3, reduce_op)
    for bit in (32, 64, 96):
        put(b, bit, 32, elements)
    for bit in (128, 144):
        put(b, bit, 16, 1)
    put(b, 160, 32, 1)
    put(b, 192, 32, elements)
    put(b, 224, 32, addr & 0xFFFFFFFF)
    return bytes(b)


def sys(sp_func, msg_id=0, cnt=0):
    b = bytearray(16)
    put(b, 4, 4, SYS)
    put(b, 8, 3, sp_func)
    if sp_func == 0:
        put(b, 0, 1, 1)  # chain_end raises the interrupt
    put(b, 32, 32, (cnt << 16) | msg_id)
    return bytes(b)


def end():
    return sys(0) + bytes(16)  # chain_end, then zero padding


def ddr(tag, offset):
    return (tag << 40) | offset


def f32(values):
    return struct.pack("<%df" % len(values), *values)


# TIU SYS (16 B: tsk_typ@41:4 = 15, tsk_eu_typ@45:5, imm@64:64) and DMA sys (16 B: cmd_type@32:5
# = 6, cmd_special_function@37:3, constant_value@96:32), for a chip's core streams.
TIU_SEND, TIU_WAIT, TIU_END = 8, 9, 31


def tiu_sys(eu, msg_id=0, cnt=0):
    b = bytearray(16)
    put(b, 41, 4, 15)
    put(b, 45, 5, eu)
    put(b, 64, 64, (cnt << 16) | msg_id)
    return bytes(b)


def tiu_end():
    return tiu_sys(TIU_END)


def dma_end():
    b = bytearray(16)
    put(b, 32, 5, 6)
    return bytes(b)
