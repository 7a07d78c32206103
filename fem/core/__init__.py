"""What every floor uses: errors (:mod:`.errors`), argument checks (:mod:`.validate`),
units (:mod:`.units`), the compiled-kernel switch (:mod:`.jit`), BLAS threads
(:mod:`.threads`), terminal display (:mod:`.display`), name registries
(:mod:`.registry`) and the old module names kept working (:mod:`.aliases`)."""

from __future__ import annotations

