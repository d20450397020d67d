"""The sync_batch_norm family (runtime/sim/src/opapi/families/sync_batch_norm.cpp): its row of
gen.families."""

from gen.families.model import Family, Op

SYNC_BATCH_NORM = Family(
    "sync_batch_norm", "PlanSyncBatchNorm",
    # The pieces of a batch norm spread over devices (torch's SyncBatchNorm): per-channel
    # statistics (stats: mean and invstd; reduce: sum and square sum), their merge over the
    # devices (gather_stats_with_counts: from means and invstds; gather_stats: from sums), the
    # normalisation with given statistics (elemt), and the backward's reduction and elementwise step.
    ops=(Op("stats", shape="channels", dtypes={"mean_out": "FLOAT", "invstd_out": "FLOAT"}),
         Op("reduce", shape="channels", dtypes={"sum": "FLOAT", "square_sum": "FLOAT"}), "elemt", "elemt_backward",
         Op("reduce_backward", shape="channels"), Op("gather_stats_with_counts", shape="channels"),
         Op("gather_stats", shape="given")),
    roles=("input", "grad_out", "weight", "bias", "mean", "invstd", "eps", "momentum", "running_mean",
           "running_var", "counts", "sum_dy", "sum_dy_xmu", "input_g", "weight_g", "bias_g", "out",
           "grad_weight", "grad_bias", "sum", "square_sum", "mean_out", "invstd_out"),
    required=(),
    source="input",
    doc="per-channel statistics, their merge over devices and the normalisation and backward steps "
        "of a synchronised batch norm, in float (double for DOUBLE)")
