"""The connectionist temporal classification loss (runtime/sim/src/opapi/families/ctc.cpp):
aclnnCtcLoss and aclnnCtcLossBackward, which F.ctc_loss reaches through op-plugin's _ctc_loss and
_ctc_loss_backward."""

from gen.families.model import Family

CTC = Family(
    "ctc", "PlanCtc",
    ops=("ctc_loss", "ctc_loss_backward"),
    output_shape="given",
    roles=("log_probs", "targets", "input_lengths", "target_lengths", "blank", "zero_infinity", "neg_log_likelihood",
           "log_alpha", "grad_out", "out"),
    required=("log_probs", "targets", "input_lengths", "target_lengths", "neg_log_likelihood", "log_alpha"),
    source="log_probs",
    doc="ctc_loss: aten's forward variables log_alpha [N, T, W] (W >= 2 * max(target_lengths) + 1, -inf where the "
        "recursion does not reach) and the loss -log p(target | log_probs) per batch (0 where infinite with "
        "zero_infinity); ctc_loss_backward: the gradient of log_probs from the backward variables, as aten's; in double")
