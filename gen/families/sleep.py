"""A stream held busy for a number of device clock cycles (runtime/sim/src/opapi/families/sleep.cpp):
aclnnSleep, torch.npu._sleep."""

from gen.families.model import Family

SLEEP = Family(
    "sleep", "PlanSleep",
    ops=("sleep",),
    roles=("cycles",),
    required=("cycles",),
    source="cycles",
    output_shape="given",
    doc="sleep: the stream's worker waits cycles / 1.65 GHz (the page's Ascend 950 clock) before the stream's next "
        "work, as the device's busy-spin on SYS_CNT; no tensor")
