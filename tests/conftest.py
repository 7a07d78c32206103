import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
# cases/ is a folder of plain modules, not a package: make them importable in tests
sys.path.insert(0, str(ROOT / "cases"))
