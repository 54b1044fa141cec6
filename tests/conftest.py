import os
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
SHARED = ROOT.parent / "shared"
# no test touches the network: litellm must use its bundled price list, not fetch one at import
os.environ["LITELLM_LOCAL_MODEL_COST_MAP"] = "True"


@pytest.fixture(scope="session")
def core():
    """Build (or reuse) the Lean core once per session; the real kernel, no mocks."""
    from specguard.kernel import runner as lean_runner
    return lean_runner.ensure_core()


@pytest.fixture
def shared_lcb():
    p = SHARED / "data" / "livecodebench"
    if not p.is_dir():
        pytest.skip("../shared/data/livecodebench is not present")
    return p
