"""What every floor uses: errors (:mod:`.errors`), argument checks (:mod:`.validate`),
units (:mod:`.units`), the compiled-kernel switch (:mod:`.jit`), BLAS threads
(:mod:`.threads`), terminal display (:mod:`.display`), name registries
(:mod:`.registry`) and names of a package loaded on first use (:mod:`.lazy`)."""

from __future__ import annotations

