"""The sync_batch_norm family (runtime/sim/src/opapi/families/sync_batch_norm.cpp): its row of
gen.families."""

from gen.families.model import Family

SYNC_BATCH_NORM = Family(
    "sync_batch_norm", "PlanSyncBatchNorm",
    # The pieces of a batch norm spread over devices (torch's SyncBatchNorm): per-channel
    # statistics (stats: mean and invstd; reduce: sum and square sum), their merge over the
    # devices (gather_stats_with_counts: from means and invstds; gather_stats: from sums), the
    # normalisation with given statistics (elemt), and the backward's reduction and elementwise step.
    ops=("stats", "reduce", "elemt", "elemt_backward", "reduce_backward", "gather_stats_with_counts",
         "gather_stats"),
    roles=("input", "grad_out", "weight", "bias", "mean", "invstd", "eps", "momentum", "running_mean",
           "running_var", "counts", "sum_dy", "sum_dy_xmu", "input_g", "weight_g", "bias_g", "out",
           "grad_weight", "grad_bias", "sum", "square_sum", "mean_out", "invstd_out"),
    required=(),
    source="input",
    op_output_shapes=(("stats", "*", "channels"), ("reduce", "*", "channels"), ("reduce_backward", "*", "channels"),
                      ("gather_stats_with_counts", "*", "channels"), ("gather_stats", "*", "given")),
    op_fixed_dtypes=(("stats", "mean_out", "FLOAT"), ("stats", "invstd_out", "FLOAT"), ("reduce", "sum", "FLOAT"),
                     ("reduce", "square_sum", "FLOAT")),
    doc="per-channel statistics, their merge over devices and the normalisation and backward steps "
        "of a synchronised batch norm, in float (double for DOUBLE)")
