// What the aclop bridge's files by concept share with the tables that register their operator types
// (math.cpp's MathEntries, nn.cpp's NnEntries, which keep one order of types and so of the list an
// unmodelled type's message gives): the phase-1 types several of the files call an aclnn API
// through, the helpers they share, and the runners each file defines for the tables.
#ifndef ACLNN_SIM_OP_COMPILER_RUNNERS_H_
#define ACLNN_SIM_OP_COMPILER_RUNNERS_H_

#include <cstddef>
#include <cstdint>

#include "op_compiler/bridge.h"

namespace aclsim::aclop {

using CastApi = Phase1<const aclTensor*, aclDataType, aclTensor*>;
using WithIntsApi = Phase1<const aclTensor*, const aclIntArray*, aclTensor*>;  // Flip, Repeat, the pads
using UnaryApi = Phase1<const aclTensor*, aclTensor*>;
using BinaryApi = Phase1<const aclTensor*, const aclTensor*, aclTensor*>;
using WithScalarApi = Phase1<const aclTensor*, const aclScalar*, aclTensor*>;  // LeakyRelu, Celu
using InplaceCopyApi = Phase1<aclTensor*, const aclTensor*>;
using InplaceAddsApi = Phase1<aclTensor*, const aclScalar*, const aclScalar*>;  // x += other * alpha
using ReduceApi = Phase1<const aclTensor*, const aclIntArray*, bool, aclDataType, aclTensor*>;  // ReduceSum, Mean
using ReduceNoDTypeApi = Phase1<const aclTensor*, const aclIntArray*, bool, aclTensor*>;        // Amax, Amin

// FLOAT, FLOAT16, BFLOAT16 or DOUBLE.
bool Floating(aclDataType dtype);
// The scalar 1 in the kind of the output's dtype (aclnnAdd's alpha).
aclScalar* One(AclnnObjects& o, aclDataType dtype);
// The value of a one-element constant input as an aclScalar of its kind (AxpyV2's alpha,
// Addcmul's value): a floating input as FLOAT or DOUBLE, an integer one as INT64.
aclError ConstScalar(const OpCall& call, AclnnObjects& o, size_t input, const char* what, aclScalar** scalar);
// One constant integer of an input (an axis), negative ones kept (the aclnn APIs count them from the end).
aclError ConstInt(const OpCall& call, size_t input, const char* what, int64_t* value);

// norms.cpp: normalisations and statistics.
aclError BNInfer(const OpCall& call);
aclError StdOrVar(const OpCall& call);
aclError LayerNorm(const OpCall& call);
aclError LpNormReduce(const OpCall& call);
aclError LpNormUpdate(const OpCall& call);
aclError BNTrainingReduce(const OpCall& call);
aclError BNTrainingUpdate(const OpCall& call);
aclError SyncBatchNormBackwardReduce(const OpCall& call);
aclError SyncBatchNormBackwardElemt(const OpCall& call);

// indexing.cpp: gathers, scatters, masks, advanced indexing, outputs the data shapes.
aclError NonZero(const OpCall& call);
aclError MaskedSelect(const OpCall& call);
aclError Unique(const OpCall& call);
aclError UniqueDim(const OpCall& call);
aclError Index(const OpCall& call);
aclError IndexPutV2(const OpCall& call);
aclError FillDiagonal(const OpCall& call);
aclError ScatterNd(const OpCall& call, bool accumulate);
aclError MaskedFill(const OpCall& call);
aclError Gather(const OpCall& call);
aclError MaskedScatter(const OpCall& call);
aclError RepeatInterleave(const OpCall& call);
aclError InplaceIndexAdd(const OpCall& call);
aclError GatherRows(const OpCall& call);
aclError ShuffleChannel(const OpCall& call);
aclError IndexFillD(const OpCall& call);
aclError ScatterElements(const OpCall& call);

// linalg.cpp: matrix inverse, triangular solve, decompositions.
aclError MatrixInverse(const OpCall& call);
aclError MatrixTriangularSolve(const OpCall& call);
aclError Qr(const OpCall& call);
aclError Svd(const OpCall& call);

// creation.cpp: sequences and identities.
aclError Range(const OpCall& call);
aclError LinSpace(const OpCall& call);
aclError LogSpaceD(const OpCall& call);
aclError StatelessRandperm(const OpCall& call);
aclError Eye(const OpCall& call);

// sampling.cpp: resizing and grid sampling.
aclError ResizeNearest(const OpCall& call);
aclError ResizeBilinear(const OpCall& call);
aclError ResizeD(const OpCall& call);
aclError GridSampler(const OpCall& call);
aclError Upsample3d(const OpCall& call);
aclError AffineGrid(const OpCall& call);

// pooling.cpp: im2col, col2im, 3-d and argmax pools.
aclError Im2col(const OpCall& call);
aclError Col2im(const OpCall& call);
aclError AvgPool3D(const OpCall& call);
aclError AvgPool3DGrad(const OpCall& call);
aclError MaxPool3D(const OpCall& call);
aclError MaxPool3DGrad(const OpCall& call);
aclError MaxPoolWithArgmaxV1(const OpCall& call);
aclError MaxPoolGradWithArgmaxV1(const OpCall& call);

}  // namespace aclsim::aclop

#endif  // ACLNN_SIM_OP_COMPILER_RUNNERS_H_
