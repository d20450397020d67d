"""The loss family (runtime/sim/src/opapi/families/loss.cpp): its row of gen.families."""

from gen.families.model import Family, Op

LOSS = Family(
    "loss", "PlanLoss",
    # Pointwise losses (self against target, broadcast) reduced by `reduction` (0 none, 1 mean,
    # 2 sum), their backwards (grad_output times the derivative, divided by the count for a
    # mean), the negative log likelihood along the class dimension 1 (nll_loss2d: self
    # [N, C, H, W]), and the softmax backwards every cross entropy's gradient goes through
    # (self: the incoming gradient, output: the forward's result). A string reduction ("none",
    # "mean", "sum"; null: "mean") serves too. hinge_embedding_loss reads margin,
    # gaussian_nll_loss var (floored at eps) and full; p (LpLoss's norm) must be 1.
    # softmax_cross_entropy_with_logits: soft labels (target) of self [N, C], out the loss [N],
    # backprop softmax(self) - target. gaussian_nll_loss_backward: out the input's gradient,
    # grad_var var's (summed back to var's shape).
    ops=(Op("mse_loss", shape="given"), Op("l1_loss", shape="given"), Op("smooth_l1_loss", shape="given"),
         Op("soft_margin_loss", shape="given"), Op("binary_cross_entropy", shape="given"),
         Op("binary_cross_entropy_with_logits", shape="given"), Op("kl_div", shape="given"), "mse_loss_backward",
         "l1_loss_backward", "smooth_l1_loss_backward", "soft_margin_loss_backward", "binary_cross_entropy_backward",
         "binary_cross_entropy_with_logits_backward", "kl_div_backward", "kl_div_target_backward",
         Op("nll_loss", shape="given"), "nll_loss_backward", "softmax_backward", "log_softmax_backward",
         Op("cross_entropy", shape="given"), "cross_entropy_grad", "binary_cross_entropy_with_logits_target_backward",
         Op("hinge_embedding_loss", shape="given"), Op("gaussian_nll_loss", shape="given"),
         Op("softmax_cross_entropy_with_logits", shape="given"),
         Op("gaussian_nll_loss_backward", shapes={"grad_var": "second"})),
    # cross_entropy: self the logits [N, C], reduction a string ("mean", "sum", "none"); log_prob
    # its log_softmax (an output; the grad's input), zloss and lse its z-loss outputs (the scale
    # zloss_scale must be 0: the pages say z-loss is not supported yet).
    roles=("self", "target", "grad_output", "weight", "pos_weight", "reduction", "beta", "log_target",
           "ignore_index", "total_weight", "output", "dim", "out", "label_smoothing", "zloss_scale",
           "return_zloss", "log_prob", "zloss", "lse", "margin", "var", "full", "eps", "p", "backprop", "grad_var"),
    required=("self", "out"),
    # The Gaussian NLL's variance: its gradient has its shape.
    second="var",
    doc="pointwise losses reduced by `reduction` (0 none, 1 mean, 2 sum) and their backwards, the negative "
        "log likelihood and its backward, cross entropy with label smoothing and its gradient, the softmax and "
        "log_softmax backwards; computed in float "
        "(double for DOUBLE), sums accumulated in double")
