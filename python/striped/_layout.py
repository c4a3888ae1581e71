# SPDX-License-Identifier: LGPL-2.1-or-later
"""Layouts and stat results as small dataclasses."""

from dataclasses import dataclass

from ._lib import ffi, lib

MiB = 1 << 20


@dataclass(frozen=True)
class Layout:
    """How a file is cut into objects (Ceph's file layout; default 4 MiB, 1, 4 MiB).

    :param stripe_unit: bytes dealt to one object before the next (multiple of 64 KiB)
    :param stripe_count: objects a stripe is dealt over
    :param object_size: bytes of an object (a multiple of stripe_unit)
    """

    stripe_unit: int = 4 * MiB
    stripe_count: int = 1
    object_size: int = 4 * MiB

    def is_valid(self) -> bool:
        """Whether the layout passes Ceph's rules (striped_layout_validate)."""
        try:
            c = self._to_c()
        except (OverflowError, TypeError):
            return False
        return lib.striped_layout_validate(c) == 0

    def _to_c(self):
        """A new struct striped_layout holding this layout."""
        return ffi.new("struct striped_layout *",
                       (self.stripe_unit, self.stripe_count, self.object_size))

    @classmethod
    def _from_c(cls, c) -> "Layout":
        """The layout a struct striped_layout holds."""
        return cls(c.stripe_unit, c.stripe_count, c.object_size)


@dataclass(frozen=True)
class Stat:
    """What a striped file's head object says about it.

    :param size: bytes in the file
    :param layout: its layout
    :param mtime: the head object's modification time, seconds since the epoch
    """

    size: int
    layout: Layout
    mtime: float
