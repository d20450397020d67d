"""torch_npu's own operators (torch_npu.npu_*, the npu:: namespace) on device="npu" against CPU
references, as torch_npu's per-operator tests compare them: the calls and references are those of
custom_ops_sweep.py (run by hand over every operator torch_npu registers), here the ones that compute,
a few per process. Among them the calls op-plugin makes that phase 1 once refused: npu_quantize without
zero points (NULL zeroPoints), npu_incre_flash_attention without actual_seq_lengths (NULL
actualSeqLengths), npu_quant_matmul (op-plugin's empty x1Offset and yOffset), npu_cross_entropy_loss
(its empty zloss and lse outputs), npu_fused_infer_attention_score without softmax_lse_flag (its [0]
softmaxLse); and, on Ascend950, npu_add_rms_norm_quant through aclnnAddRmsNormQuant. The operators
op-plugin still runs by type name through aclopCompileAndExecute (npu_silu as Swish, npu_mish,
npu_transpose, npu_broadcast, npu_slice, npu_indexing as StridedSlice (with an ellipsis too), npu_one_hot as Fill and
OneHotD, npu_sort_v2, npu_scaled_masked_softmax, npu_confusion_transpose, npu_bmmV2 as BatchMatMul,
npu_conv2d, npu_layer_norm_eval as LayerNormV3; npu_stride_add; npu_silu_backward as SwishGrad,
npu_mish_backward as MishGrad, npu_max.dim and npu_min.dim as ArgMaxWithValue and ArgMinWithValue (their backward and npu_scatter as
ArgMaxGrad),
npu_scaled_masked_softmax_backward as ScaledMaskedSoftmaxGrad, npu_pad, npu_stride_copy as AsStrided,
npu_view_copy, npu_dropout_do_mask as DropOutDoMask; and the vision operators no aclnn API computes, npu_iou and npu_ptiou as Iou, npu_giou, npu_diou, npu_ciou,
npu_giou_backward and npu_diou_backward as GIoUGrad and DIoUGrad, npu_nms_v4, npu_batch_nms as BatchMultiClassNonMaxSuppression, npu_ps_roi_pooling and its backward (PSROIPoolingGradV2D), npu_roi_align and npu_roi_alignbk as
ROIAlign and ROIAlignGrad, npu_deformable_conv2d as DeformableOffsets and Conv2D,
npu_bounding_box_encode and npu_bounding_box_decode, npu_anchor_response_flags, npu_yolo_boxes_encode, npu_sub_sample as
SubSample; the rotated-box operators (rotated.cpp) npu_rotated_iou, npu_rotated_overlaps, npu_rotated_box_encode and
npu_rotated_box_decode, npu_nms_rotated as RotatedNMS, npu_nms_with_mask as NMSWithMask; npu_sign_bits_pack and npu_sign_bits_unpack,
npu_softmax_cross_entropy_with_logits and its backward, as the aclnn APIs of the same operations;
npu_apply_adam as ApplyAdamD, aclnnApplyAdam's formula on a chip its page refuses; npu_apply_adam_w as ApplyAdamW (aclnnApplyAdamW, on the chips its README lists); npu_fused_attention_qkv_grad as
AttentionQKVGradX and AttentionQKVGradW; npu_alloc_float_status as NPUAllocFloatStatus;
npu_dropout_with_add_softmax as DropOutGenMaskV3 and AxpyWithSoftmaxAndDropOutDoMask; on Ascend910
npu_fast_gelu and its backward as FastGelu and FastGeluGrad, npu_quantize as Quantize (through
aclnnQuantize) and npu_sign_bits_unpack, whose
operators' READMEs list that chip where their aclnn pages do not) run
through the simulator's aclop bridge (runtime/sim/src/op_compiler/ops.cpp, vision.cpp, rotated.cpp, custom_ops.cpp); in float16 op-plugin asks for npu_bmmV2's output in
FRACTAL_NZ, which the bridge computes in the plain layout and transforms."""

from pathlib import Path

import pytest

GROUPS = {
    "norms": ["npu_rms_norm", "npu_rms_norm_backward", "npu_gemma_rms_norm", "npu_add_rms_norm", "npu_deep_norm",
              "npu_add_layer_norm", "npu_group_norm_silu", "npu_layer_norm_eval", "npu_add_rms_norm_v2",
              "npu_add_rms_norm_v2_functional", "npu_renorm_backward", "npu_renorm_backward@p3"],
    "activations": ["npu_swiglu", "npu_swiglu_backward", "npu_geglu", "npu_geglu_grad", "npu_fast_gelu", "fast_gelu",
                    "npu_fast_gelu_backward", "npu_gelu", "npu_gelu_backward", "npu_gelu_mul", "npu_silu", "npu_mish",
                    "npu_silu_backward", "npu_mish_backward", "npu_clipped_swiglu", "npu_clipped_swiglu@halves"],
    "rotary_and_attention": ["npu_rotary_mul", "npu_rotary_mul_backward", "npu_apply_rotary_pos_emb",
                             "npu_fusion_attention", "npu_fusion_attention@BNSD_masked", "npu_fusion_attention_grad",
                             "npu_prompt_flash_attention", "npu_prompt_flash_attention@defaults",
                             "npu_incre_flash_attention",
                             "npu_fused_infer_attention_score", "npu_fused_infer_attention_score_v2", "npu_mrope",
                             "npu_nsa_select_attention", "npu_nsa_select_attention_grad", "npu_nsa_compress",
                             "npu_nsa_compress_grad", "npu_nsa_compress_infer.cache", "npu_nsa_compress_attention",
                             "npu_nsa_compress_attention_infer"],
    "quantisation_and_matmul": ["npu_quantize", "npu_dynamic_quant", "npu_dynamic_block_quant", "npu_group_quant",
                                "npu_quant_scatter", "npu_quant_scatter_", "npu_rotate_quant", "npu_swiglu_quant",
                                "npu_dequant_swiglu_quant",
                                "npu_anti_quant", "npu_add_rms_norm_quant",
                                "npu_quant_matmul", "npu_weight_quant_batchmatmul", "npu_grouped_matmul", "npu_grouped_matmul@int8",
                                "npu_linear",
                                "npu_linear_backward",
                                "npu_dtype_cast", "npu_bmmV2", "npu_conv2d", "npu_deformable_conv2d", "npu_iou",
                                "npu_ptiou", "npu_giou", "npu_diou", "npu_ciou", "npu_giou_backward", "npu_diou_backward",
                                "npu_ps_roi_pooling_backward", "npu_anchor_response_flags",
                                "npu_yolo_boxes_encode", "npu_nms_v4", "npu_batch_nms", "npu_ps_roi_pooling",
                                "npu_roi_align", "npu_roi_align@aligned_adaptive", "npu_roi_alignbk", "npu_stride_add",
                                "npu_bounding_box_encode", "npu_bounding_box_decode", "npu_convolution"],
    "softmax_indexing_and_loss": ["npu_attn_softmax_", "npu_attn_softmax_backward_", "scatter_update",
                                  "npu_scatter_nd_update", "npu_gather_sparse_index", "npu_cross_entropy_loss",
                                  "npu_top_k_top_p", "npu_top_k_top_p_sample", "npu_top_k_top_p_sample@min_p",
                                  "npu_top_k_top_p_sample@multinomial", "npu_scatter_list", "npu_scatter_list_",
                                  "npu_format_cast", "npu_gather_backward",
                                  "repeat_interleave_backward_int", "l1_loss_backward", "kl_div_backward",
                                  "npu_binary_cross_entropy_with_logits_backward", "npu_moe_init_routing_v2",
                                  "npu_moe_init_routing_v2@quant_key_value", "npu_moe_init_routing_v2@quant_unscaled",
                                  "npu_moe_gating_top_k_softmax", "npu_moe_gating_top_k_softmax@3d",
                                  "npu_moe_gating_top_k_softmax_v2", "npu_moe_gating_top_k_softmax_v2@renorm",
                                  "npu_moe_gating_top_k_softmax_v2@finished", "npu_moe_finalize_routing",
                                  "npu_ffn", "npu_ffn@experts", "npu_ffn@index", "npu_ffn@relu",
                                  "npu_transpose", "npu_broadcast", "npu_slice", "npu_indexing", "npu_one_hot",
                                  "npu_sort_v2", "npu_scaled_masked_softmax", "npu_confusion_transpose",
                                  "npu_scaled_masked_softmax_backward", "npu_max.dim", "npu_min.dim",
                                  "npu_gather_sparse_index_backward@vector_index", "npu_indexing@ellipsis",
                                  "npu_pad", "npu_stride_copy", "npu_view_copy", "npu_dropout_do_mask",
                                  "npu_dropout_backward", "kl_div_target_backward", "npu_max_backward",
                                  "npu_min_backward", "npu_scatter", "npu_sign_bits_pack", "npu_sign_bits_unpack",
                                  "npu_softmax_cross_entropy_with_logits", "npu_dropout_with_add_softmax",
                                  "npu_softmax_cross_entropy_with_logits_backward", "npu_apply_adam",
                                  "npu_apply_adam@nesterov", "fft_c2r_backward",
                                  "_npu_dtype_cast_backward", "npu_dtype_cast_", "copy_memory_", "npu_sort_v2.out"],
    # The rotated-box operators and the suppressions of rotated.cpp, with references written from
    # MMCV's kernels and torch_npu's docstrings.
    "rotated_boxes_and_nms": ["npu_rotated_iou", "npu_rotated_iou@iof", "npu_rotated_iou@corners", "npu_rotated_overlaps",
                              "npu_rotated_box_encode", "npu_rotated_box_decode", "npu_nms_rotated", "npu_nms_with_mask",
                              "npu_sub_sample", "npu_fused_attention_qkv_grad", "npu_alloc_float_status"],
    # Derived pages of ops-transformer's MoE and grouped-matmul READMEs (op_docs/derived/), and vLLM's decode step.
    "moe_routing_and_grouped_matmul": ["npu_moe_init_routing", "npu_moe_init_routing_quant",
                                       "npu_moe_init_routing_quant@static_active", "npu_moe_compute_expert_tokens",
                                       "npu_moe_token_permute",
                                       "npu_moe_token_unpermute", "npu_moe_token_permute_grad",
                                       "npu_moe_token_unpermute_grad", "npu_moe_token_permute_with_routing_map",
                                       "npu_moe_token_unpermute_with_routing_map",
                                       "npu_moe_token_permute_with_routing_map_grad",
                                       "npu_moe_token_unpermute_with_routing_map_grad", "npu_moe_re_routing",
                                       "_npu_moe_token_unpermute", "npu_grouped_matmul_add", "npu_grouped_matmul@list",
                                       "npu_moe_gating_top_k_backward", "npu_advance_step_flashattn"],
    # Operators whose pages the simulator computed before any call was written for them: the group-limited
    # gating, the INT32 dequantisation, punica's LoRA product, the add-RMS-norm with one or two dynamic quantisations,
    # DeepNorm's gradient, batch norm's per-channel sums and op-plugin's own cast.
    "gating_dequant_lora_and_norms": ["npu_moe_gating_top_k", "npu_moe_gating_top_k@group_max", "npu_dequant_bias",
                                      "npu_batch_gather_matmul", "npu_add_rms_norm_dynamic_quant",
                                      "npu_add_rms_norm_dynamic_quant@two_smooths",
                                      "npu_add_rms_norm_dynamic_quant@second_only",
                                      "npu_deep_norm_backward", "batch_norm_reduce", "_npu_dtype_cast"],
    # Documented operators the schema's arguments could not serve (rows where the page wants rows, FLOAT16
    # where it lists no FLOAT, integer indices), in-place twins, and the random and format operators that
    # computed with nothing to compare: dropouts against their own masks, format casts by what they report.
    "documented_rows_in_place_and_masks": ["npu_rms_norm_quant", "npu_add_rms_norm_cast",
                                           "npu_dynamic_quant_asymmetric", "scatter_update_", "npu_scatter_nd_update_",
                                           "npu_cross_entropy_loss_backward", "npu_add_layer_norm_backward",
                                           "npu_group_norm_swish", "npu_masked_softmax_with_rel_pos_bias",
                                           "npu_trans_quant_param", "npu_transpose_batchmatmul", "_npu_index_add",
                                           "_npu_index_add_", "_npu_moe_token_unpermute_with_routing_map",
                                           "npu_grouped_matmul_add_", "_npu_dropout", "_dropout_with_byte_mask",
                                           "dropout_with_byte_mask", "npu_format_cast_.acl_format", "_npu_format_cast",
                                           "get_npu_format", "npu_apply_adam_w", "npu_apply_adam_w@amsgrad",
                                           "npu_apply_adam.out", "npu_apply_adam_w.out", "npu_transpose.out",
                                           "npu_broadcast.out", "npu_indexing.out", "batch_norm_gather_stats_update",
                                           "npu_dropout_gen_mask", "npu_fused_cross_entropy_loss_with_max_sum",
                                           "_quantize_per_channel_impl.out", "_quantize_per_tensor_impl.out",
                                           "npu_reshape.out", "npu_stride_copy.out", "npu_format_cast.Tensor",
                                           "npu_format_cast_", "npu_mla_prolog_v3_functional", "npu_fused_linear_online_max_sum",
                                           "npu_fused_linear_cross_entropy_loss_with_max_sum_backward", "npu_grouped_matmul.List",
                                           "_lstm_npu", "_gru_npu", "_npu_dropout_gen_mask.Tensor", "_lstm_npu_backward",
                                           "_gru_npu_backward"],
}
# The operators op-plugin sends to aclnn only on Ascend950 (to aclop elsewhere, the groups above),
# npu_add_rms_norm_quant's other route there, and those whose page supports Ascend950 alone
# (aclnnRmsNormGradQuant, aclnnSwigluGroupQuantGrad, aclnnGeluQuant, aclnnRmsNormQuantV3, aclnnFusedMatmul);
# npu_apply_adam takes aclnnApplyAdam there (IsAclnnOnly), its scalars as 0-d tensors (semantics/optim.toml's
# client_ranks), and npu_rms_norm_quant_v2 on an x without grad passes an empty rstd (client_empty).
ASCEND950 = ["npu_add_rms_norm_quant", "npu_indexing", "npu_confusion_transpose", "npu_scaled_masked_softmax",
             "_npu_rms_norm_backward_quant", "npu_swiglu_group_quant_backward", "npu_gelu_quant",
             "npu_gelu_quant@static_tanh", "npu_rms_norm_quant_v2", "npu_rms_norm_quant_v2@multiply", "npu_fused_matmul",
             "npu_fused_matmul@mul", "npu_fused_matmul@gelu_tanh", "npu_fused_matmul@relu",
             "npu_rms_norm_quant_v2@inference", "npu_apply_adam", "npu_apply_adam@nesterov", "npu_apply_adam_w",
             "npu_apply_adam_w@amsgrad", "npu_format_cast.Tensor", "npu_format_cast_.acl_format"]
# The operators op-plugin sends to aclop on Ascend910 whose aclnn page leaves that chip out while
# the operator's README lists it (FastGelu, FastGeluGrad, SignBitsUnpack, Quantize: Atlas 训练系列产品
# √), the byte-mask dropout, aclop on every chip, and ArgMaxGrad, aclop on every chip, whose
# aclnnInplaceScatter page leaves Ascend910 and Ascend310P out.
ARG_MAX_GRAD = ["npu_max_backward", "npu_min_backward", "npu_scatter"]
ASCEND910 = ["fast_gelu", "npu_fast_gelu", "npu_fast_gelu_backward", "npu_sign_bits_unpack", "npu_quantize",
             "npu_dropout_with_add_softmax", "npu_apply_adam_w"] + ARG_MAX_GRAD
# What a page refuses in a low-precision dtype (aclnnGatherV3, aclnnSyncBatchNormGatherStats, aclnnLSTM and
# aclnnGRU list no BFLOAT16 on Ascend910B: torch.nn's BFLOAT16 LSTM and GRU take op-plugin's acl_op path).
NOT_IN = {"float16": set(), "bfloat16": {"npu_gather_sparse_index", "batch_norm_gather_stats_update", "_lstm_npu",
                                         "_gru_npu", "_lstm_npu_backward", "_gru_npu_backward"}}
# The operators whose page lists FLOAT16 and BFLOAT16 only (aclnnInterleaveRope, a derived page).
LOW_PRECISION_ONLY = ["npu_interleave_rope"]


def check_script(names: list[str], dtype: str = "float32") -> str:
    return f"""
        import sys
        sys.path.insert(0, {str(Path(__file__).parent)!r})
        from custom_ops_sweep import check
        failures = check({names!r}, {dtype!r})
        assert not failures, failures
    """


@pytest.mark.parametrize("group", GROUPS)
def test_custom_operators_equal_their_cpu_reference(run_npu, group):
    run_npu(check_script(GROUPS[group]))


@pytest.mark.parametrize("dtype", NOT_IN)
def test_custom_operators_in_low_precision_equal_their_cpu_reference(run_npu, dtype):
    names = [name for group in GROUPS.values() for name in group if name not in NOT_IN[dtype]] + LOW_PRECISION_ONLY
    run_npu(check_script(names, dtype))


def test_custom_operators_of_ascend950_equal_their_cpu_reference(run_npu):
    run_npu(check_script(ASCEND950), env={"ACLNN_SIM_SOC": "Ascend950"})


def test_custom_operators_of_ascend910_equal_their_cpu_reference(run_npu):
    run_npu(check_script(ASCEND910), env={"ACLNN_SIM_SOC": "Ascend910"})


# The operators op-plugin sends to aclop on Ascend310P that compute there: the RMS norms, AddLayerNorm
# and DeepNorm, whose ops-nn READMEs list Atlas inference series products (and mark Atlas training
# series products, Ascend910, unsupported: refused there, as below), and SwishGrad (every product).
ASCEND310P_NORMS = ["npu_rms_norm", "npu_rms_norm_backward", "npu_add_rms_norm", "npu_add_layer_norm", "npu_deep_norm"]
# And npu_quant_matmul_dequant, whose page (aclnnQuantMatmulDequant) supports Atlas 推理系列产品 alone, and
# the aclop types on every chip whose API's page leaves Ascend310P out: ArgMaxGrad, npu_linear's MatMulV2
# with a bias (aclnnInplaceAdd) and StrideAdd (aclnnAdd).
ASCEND310P = ASCEND310P_NORMS + ["npu_silu_backward", "npu_quant_matmul_dequant", "npu_apply_adam_w", "npu_linear",
                                 "npu_stride_add"] + ARG_MAX_GRAD


def test_custom_operators_of_ascend310p_equal_their_cpu_reference(run_npu):
    run_npu(check_script(ASCEND310P), env={"ACLNN_SIM_SOC": "Ascend310P"})


@pytest.mark.parametrize("soc", ["Ascend310P", "Ascend910", "Ascend910B"])
def test_attn_softmax_backward_multiplies_in_float16_where_torch_npu_asks_it(run_npu, soc):
    # op-plugin passes aclnnMatmul cubeMathType USE_FP16 on host_code.FLOAT16_CUBE_CHIPS (0 elsewhere):
    # the float32 product is then that of the operands rounded to float16, a difference far beyond
    # the sweep's 1e-4; the sweep's reference follows the chip and still equals it.
    run_npu(f"""
        import sys
        sys.path.insert(0, {str(Path(__file__).parent)!r})
        from custom_ops_sweep import check
        from host_code import FLOAT16_CUBE_CHIPS, Float16CubeProducts
        y, dy, values = torch.randn(4, 3, 64).softmax(-1), torch.randn(4, 3, 32), torch.randn(4, 64, 32)

        def reference():
            g = dy @ values.transpose(-1, -2)
            return y * (g - (g * y).sum(-1, keepdim=True))
        with Float16CubeProducts():
            lowered = reference()
        got = torch_npu.npu_attn_softmax_backward_(y.npu(), dy.npu(), values.npu()).cpu()
        exact_error, lowered_error = (got - reference()).abs().max().item(), (got - lowered).abs().max().item()
        if {soc!r} in FLOAT16_CUBE_CHIPS:
            assert lowered_error < 1e-6 < 1e-4 < exact_error, (exact_error, lowered_error)
        else:
            assert exact_error < 1e-5 < 1e-4 < lowered_error, (exact_error, lowered_error)
        assert not check(["npu_attn_softmax_backward_"])
    """, env={"ACLNN_SIM_SOC": soc})


def test_rms_norm_refused_on_ascend910_as_its_readme_says(run_npu):
    output = run_npu(f"""
        import sys
        sys.path.insert(0, {str(Path(__file__).parent)!r})
        from custom_ops_sweep import check
        print(check({ASCEND310P_NORMS!r}, "float32"))
    """, env={"ACLNN_SIM_SOC": "Ascend910", "ASCEND_LAUNCH_BLOCKING": "1"})
    for op in ("RmsNorm", "RmsNormGrad", "AddRmsNorm", "AddLayerNorm", "DeepNorm"):
        assert f"aclop {op}: not supported on Ascend910" in output, output


def test_apply_adam_w_refused_on_atlas_200i_500_a2_as_its_readme_says(run_npu):
    # op-plugin sends npu_apply_adam_w to the aclop ApplyAdamW off aclnn-only chips; ops-nn's apply_adam_w
    # README marks Atlas 200I/500 A2 (Ascend310B) unsupported, where the other chips compute it.
    output = run_npu(f"""
        import sys
        sys.path.insert(0, {str(Path(__file__).parent)!r})
        from custom_ops_sweep import check
        print(check(["npu_apply_adam_w"], "float32"))
    """, env={"ACLNN_SIM_SOC": "Ascend310B", "ASCEND_LAUNCH_BLOCKING": "1"})
    assert "aclop ApplyAdamW: not supported on Ascend310B" in output, output


def test_quantize_with_zero_points_on_ascend910(run_npu):
    # op-plugin's acl_op npu_quantize (Ascend910) sends Quantize scales and zero points shaped
    # [1, C] and axis 1 for axis -1; the README's round(x / scales + zero_points), saturated.
    run_npu("""
        x = torch.randn(4, 6) * 5
        scales = torch.rand(6) + 0.3
        for dtype, zero_dtype, low, high in ((torch.qint8, torch.int8, -128, 127), (torch.quint8, torch.uint8, 0, 255)):
            zero = torch.randint(0, 4, (6,)).to(zero_dtype)
            got = torch_npu.npu_quantize(x.npu(), scales.npu(), zero.npu(), dtype, -1).cpu()
            want = torch.round(x / scales + zero.float()).clamp(low, high).to(got.dtype)
            assert torch.equal(got, want), (dtype, got, want)
    """, env={"ACLNN_SIM_SOC": "Ascend910"})


def test_contrib_roi_align_module_trains_as_torchvision(run_npu):
    # torch_npu.contrib's ROIAlign (detectron2's interface) runs npu_roi_align forward and
    # npu_roi_alignbk backward with roi_end_mode 0 or 3 by `aligned`: both equal torchvision's
    # RoIAlign (the sweep's plain-PyTorch reference) and its autograd.
    run_npu(f"""
        import sys
        sys.path.insert(0, {str(Path(__file__).parent)!r})
        from custom_ops_sweep import roi_align_reference
        from torch_npu.contrib.module import ROIAlign
        x = torch.randn(2, 3, 8, 7)
        rois = torch.tensor([[0, 1.0, 1.5, 6.0, 5.0], [1, -1.0, 2.0, 9.5, 7.0], [0, -6.0, -4.0, 4.0, 18.0]])
        for aligned in (False, True):
            on_npu = x.npu().requires_grad_()
            out = ROIAlign((2, 2), 0.5, 2, aligned=aligned)(on_npu, rois.npu())
            grad = torch.randn(out.shape)
            out.backward(grad.npu())
            on_cpu = x.clone().requires_grad_()
            want = roi_align_reference(on_cpu, rois, 0.5, (2, 2), 2, aligned)
            want.backward(grad)
            assert torch.allclose(out.detach().cpu(), want, atol=1e-5), (aligned, (out.detach().cpu() - want).abs().max())
            assert torch.allclose(on_npu.grad.cpu(), on_cpu.grad, atol=1e-5), (aligned, (on_npu.grad.cpu() - on_cpu.grad).abs().max())
    """)


def test_fused_attention_qkv_grad_refuses_a_projection_that_is_not_square(run_npu):
    # torch_npu sizes the bias gradients by the kernel's first dimension, where the bias of
    # x @ kernel + bias has the second: only the contrib's square projections are pinned
    output = run_npu("""
        h = lambda *shape: torch.randn(*shape, dtype=torch.float16).npu()
        try:
            torch_npu.npu_fused_attention_qkv_grad(h(8, 6), h(8, 6), h(8, 6), h(4, 6), h(4, 6), h(4, 6), h(8, 4), h(8, 4))
            torch.npu.synchronize()
            print("computed")
        except RuntimeError as error:
            print("refused:", " ".join(str(error).split()))
    """, env={"ASCEND_LAUNCH_BLOCKING": "1"})
    assert "(AttentionQKVGradX)" in output and "a projection that is not square is not modelled" in output, output
