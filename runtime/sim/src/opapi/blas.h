// OpenBLAS (the scipy-openblas32 wheel) for the families that multiply matrices or factor them
// (matmul, conv, rnn, vocab_parallel, linalg): UseBlas() before their first BLAS or LAPACK call.
#ifndef ACLNN_SIM_OPAPI_BLAS_H_
#define ACLNN_SIM_OPAPI_BLAS_H_

namespace aclsim {

// Once per process: OpenBLAS splits a product over as many threads as the simulator's pool has
// (ACLNN_SIM_THREADS).
void UseBlas();

}  // namespace aclsim

#endif  // ACLNN_SIM_OPAPI_BLAS_H_
