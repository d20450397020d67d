 #include <iostream>
#include <vector>
#include "acl/acl.h"
#include "aclnnop/aclnn_gru_backward.h"

#define CHECK_RET(cond, return_expr) \
    do {                             \
        if (!(cond)) {               \
            return_expr;             \
        }                            \
    } while (0)

#define LOG_PRINT(message, ...)         \
    do {                                \
        printf(message, ##__VA_ARGS__); \
    } while (0)

int64_t GetShapeSize(const std::vector<int64_t>& shape)
{
    int64_t shapeSize = 1;
    for (auto i : shape) {
        shapeSize *= i;
    }
    return shapeSize;
}

void PrintOutResult(const std::string& name, const std::vector<int64_t>& shape, void** deviceAddr)
{
    auto size = GetShapeSize(shape);
    std::vector<float> resultData(size, 0);
    auto ret = aclrtMemcpy(resultData.data(), resultData.size() * sizeof(resultData[0]), *deviceAddr,
                           size * sizeof(resultData[0]), ACL_MEMCPY_DEVICE_TO_HOST);
    CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("copy %s from device to host failed. ERROR: %d\n", name.c_str(), ret);
              return );
    LOG_PRINT("=== %s shape=[", name.c_str());
    for (size_t i = 0; i < shape.size(); i++) {
        LOG_PRINT("%ld%s", shape[i], (i + 1 < shape.size()) ? "," : "");
    }
    LOG_PRINT("] ===\n");
    for (int64_t i = 0; i < size; i++) {
        LOG_PRINT("  [%ld] = %f\n", i, resultData[i]);
    }
    LOG_PRINT("\n");
}

int Init(int32_t deviceId, aclrtStream* stream)
{
    // 固定写法，AscendCL初始化
    auto ret = aclInit(nullptr);
    CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("aclInit failed. ERROR: %d\n", ret); return ret);
    ret = aclrtSetDevice(deviceId);
    CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("aclrtSetDevice failed. ERROR: %d\n", ret); return ret);
    ret = aclrtCreateStream(stream);
    CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("aclrtCreateStream failed. ERROR: %d\n", ret); return ret);
    return 0;
}

template <typename T>
int CreateAclTensor(const std::vector<T>& hostData, const std::vector<int64_t>& shape, void** deviceAddr,
                    aclDataType dataType, aclTensor** tensor)
{
    auto size = GetShapeSize(shape) * sizeof(T);
    // 调用aclrtMalloc申请device侧内存
    auto ret = aclrtMalloc(deviceAddr, size, ACL_MEM_MALLOC_HUGE_FIRST);
    CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("aclrtMalloc failed. ERROR: %d\n", ret); return ret);
    // 调用aclrtMemcpy将host侧数据复制到device侧内存上
    ret = aclrtMemcpy(*deviceAddr, size, hostData.data(), size, ACL_MEMCPY_HOST_TO_DEVICE);
    CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("aclrtMemcpy failed. ERROR: %d\n", ret); return ret);

    // 计算连续tensor的strides
    std::vector<int64_t> strides(shape.size(), 1);
    for (int64_t i = shape.size() - 2; i >= 0; i--) {
        strides[i] = shape[i + 1] * strides[i + 1];
    }

    // 调用aclCreateTensor接口创建aclTensor
    *tensor = aclCreateTensor(shape.data(), shape.size(), dataType, strides.data(), 0, aclFormat::ACL_FORMAT_ND,
                              shape.data(), shape.size(), *deviceAddr);
    return 0;
}

int main()
{
    // 1. （固定写法）device/stream初始化，参考AscendCL对外接口列表
    // 根据自己的实际device填写deviceId
    int32_t deviceId = 0;
    aclrtStream stream;
    auto ret = Init(deviceId, &stream);
    CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("Init acl failed. ERROR: %d\n", ret); return ret);

    // 2. 构造输入与输出，需要根据API的接口自定义构造
    // 单层单向、带偏置(bias)的GRU反向样例
    int64_t timeStep = 2;
    int64_t batchSize = 1;
    int64_t inputSize = 4;
    int64_t hiddenSize = 4;
    int64_t gateNum = 3; // GRU: reset / update / new
    int64_t numLayers = 1;
    bool hasBias = true;
    bool bidirectional = false;
    bool batchFirst = false;

    // 形状定义
    std::vector<int64_t> xShape = {timeStep, batchSize, inputSize};
    std::vector<int64_t> wiShape = {gateNum * hiddenSize, inputSize};
    std::vector<int64_t> whShape = {gateNum * hiddenSize, hiddenSize};
    std::vector<int64_t> bShape = {gateNum * hiddenSize};
    // 初始hidden状态: [batchSize, hiddenSize]，列表长度 D * numLayers = 1
    std::vector<int64_t> initHShape = {batchSize, hiddenSize};
    std::vector<int64_t> dyShape = {timeStep, batchSize, hiddenSize};
    std::vector<int64_t> dhShape = {numLayers, batchSize, hiddenSize};
    // 每步门激活值/中间值: [timeStep, batchSize, hiddenSize]
    std::vector<int64_t> gateShape = {timeStep, batchSize, hiddenSize};

    // 反向传播输出张量形状
    std::vector<int64_t> dxShape = xShape;           // 与input相同
    std::vector<int64_t> dhPrevShape = dhShape;      // [D * numLayers, batchSize, hiddenSize]
    std::vector<int64_t> dwiShape = wiShape;         // 与wi相同
    std::vector<int64_t> dwhShape = whShape;         // 与wh相同
    std::vector<int64_t> dbShape = bShape;           // 与b相同

    // 设备地址指针
    void* xDeviceAddr = nullptr;
    void* wiDeviceAddr = nullptr;
    void* whDeviceAddr = nullptr;
    void* biDeviceAddr = nullptr;
    void* bhDeviceAddr = nullptr;
    void* initHDeviceAddr = nullptr;
    void* dyDeviceAddr = nullptr;
    void* dhDeviceAddr = nullptr;
    void* rDeviceAddr = nullptr;
    void* zDeviceAddr = nullptr;
    void* nDeviceAddr = nullptr;
    void* hnDeviceAddr = nullptr;
    void* hDeviceAddr = nullptr;

    // 反向传播输出设备地址指针
    void* dxDeviceAddr = nullptr;
    void* dhPrevDeviceAddr = nullptr;
    void* dwiDeviceAddr = nullptr;
    void* dwhDeviceAddr = nullptr;
    void* dbiDeviceAddr = nullptr;
    void* dbhDeviceAddr = nullptr;

    // ACL Tensor 指针
    aclTensor* x = nullptr;
    aclTensor* wi = nullptr;
    aclTensor* wh = nullptr;
    aclTensor* bi = nullptr;
    aclTensor* bh = nullptr;
    aclTensor* initH = nullptr;
    aclTensor* dy = nullptr;
    aclTensor* dh = nullptr;
    aclTensor* r = nullptr;
    aclTensor* z = nullptr;
    aclTensor* n = nullptr;
    aclTensor* hn = nullptr;
    aclTensor* h = nullptr;

    // 反向传播输出 ACL Tensor 指针
    aclTensor* dx = nullptr;
    aclTensor* dhPrev = nullptr;
    aclTensor* dwi = nullptr;
    aclTensor* dwh = nullptr;
    aclTensor* dbi = nullptr;
    aclTensor* dbh = nullptr;

    // 输入数据。注意: r/z 为 sigmoid 输出、n 为 tanh 输出，必须取非饱和值(如 0.3/0.5/0.2)，
    // 否则激活导数为0会导致反向梯度全为0，看不出计算结果。
    std::vector<float> xHostData(GetShapeSize(xShape), 0.5f);
    std::vector<float> wiHostData(GetShapeSize(wiShape), 0.1f);
    std::vector<float> whHostData(GetShapeSize(whShape), 0.1f);
    std::vector<float> biHostData(GetShapeSize(bShape), 0.0f);
    std::vector<float> bhHostData(GetShapeSize(bShape), 0.0f);
    std::vector<float> initHHostData(GetShapeSize(initHShape), 0.5f);
    std::vector<float> dyHostData(GetShapeSize(dyShape), 1.0f);
    std::vector<float> dhHostData(GetShapeSize(dhShape), 0.5f);
    std::vector<float> rHostData(GetShapeSize(gateShape), 0.3f);  // reset gate(sigmoid), 非饱和
    std::vector<float> zHostData(GetShapeSize(gateShape), 0.5f);  // update gate(sigmoid), 非饱和
    std::vector<float> nHostData(GetShapeSize(gateShape), 0.2f);  // candidate(tanh), 非饱和
    std::vector<float> hnHostData(GetShapeSize(gateShape), 0.3f); // W_hn*h_{t-1}+b_hn 中间值
    std::vector<float> hHostData(GetShapeSize(gateShape), 0.5f);  // 隐藏状态 h

    // 反向传播输出数据(初始化为0)
    std::vector<float> dxHostData(GetShapeSize(dxShape), 0.0f);
    std::vector<float> dhPrevHostData(GetShapeSize(dhPrevShape), 0.0f);
    std::vector<float> dwiHostData(GetShapeSize(dwiShape), 0.0f);
    std::vector<float> dwhHostData(GetShapeSize(dwhShape), 0.0f);
    std::vector<float> dbiHostData(GetShapeSize(dbShape), 0.0f);
    std::vector<float> dbhHostData(GetShapeSize(dbShape), 0.0f);

    // 创建 x aclTensor
    ret = CreateAclTensor(xHostData, xShape, &xDeviceAddr, aclDataType::ACL_FLOAT, &x);
    CHECK_RET(ret == ACL_SUCCESS, return ret);

    // 创建 params(w_ih, w_hh, b_ih, b_hh) aclTensorList
    ret = CreateAclTensor(wiHostData, wiShape, &wiDeviceAddr, aclDataType::ACL_FLOAT, &wi);
    CHECK_RET(ret == ACL_SUCCESS, return ret);
    ret = CreateAclTensor(whHostData, whShape, &whDeviceAddr, aclDataType::ACL_FLOAT, &wh);
    CHECK_RET(ret == ACL_SUCCESS, return ret);
    ret = CreateAclTensor(biHostData, bShape, &biDeviceAddr, aclDataType::ACL_FLOAT, &bi);
    CHECK_RET(ret == ACL_SUCCESS, return ret);
    ret = CreateAclTensor(bhHostData, bShape, &bhDeviceAddr, aclDataType::ACL_FLOAT, &bh);
    CHECK_RET(ret == ACL_SUCCESS, return ret);
    aclTensor* paramsArray[] = {wi, wh, bi, bh};
    auto paramsList = aclCreateTensorList(paramsArray, sizeof(paramsArray) / sizeof(paramsArray[0]));

    // 创建 hx(initH) aclTensorList，列表长度 D * numLayers = 1
    ret = CreateAclTensor(initHHostData, initHShape, &initHDeviceAddr, aclDataType::ACL_FLOAT, &initH);
    CHECK_RET(ret == ACL_SUCCESS, return ret);
    aclTensor* hxArray[] = {initH};
    auto hxList = aclCreateTensorList(hxArray, sizeof(hxArray) / sizeof(hxArray[0]));

    // 创建 dy / dh aclTensor
    ret = CreateAclTensor(dyHostData, dyShape, &dyDeviceAddr, aclDataType::ACL_FLOAT, &dy);
    CHECK_RET(ret == ACL_SUCCESS, return ret);
    ret = CreateAclTensor(dhHostData, dhShape, &dhDeviceAddr, aclDataType::ACL_FLOAT, &dh);
    CHECK_RET(ret == ACL_SUCCESS, return ret);

    // 创建 r / z / n / h_n / h aclTensorList，列表长度 D * numLayers = 1
    ret = CreateAclTensor(rHostData, gateShape, &rDeviceAddr, aclDataType::ACL_FLOAT, &r);
    CHECK_RET(ret == ACL_SUCCESS, return ret);
    aclTensor* rArray[] = {r};
    auto rList = aclCreateTensorList(rArray, sizeof(rArray) / sizeof(rArray[0]));

    ret = CreateAclTensor(zHostData, gateShape, &zDeviceAddr, aclDataType::ACL_FLOAT, &z);
    CHECK_RET(ret == ACL_SUCCESS, return ret);
    aclTensor* zArray[] = {z};
    auto zList = aclCreateTensorList(zArray, sizeof(zArray) / sizeof(zArray[0]));

    ret = CreateAclTensor(nHostData, gateShape, &nDeviceAddr, aclDataType::ACL_FLOAT, &n);
    CHECK_RET(ret == ACL_SUCCESS, return ret);
    aclTensor* nArray[] = {n};
    auto nList = aclCreateTensorList(nArray, sizeof(nArray) / sizeof(nArray[0]));

    ret = CreateAclTensor(hnHostData, gateShape, &hnDeviceAddr, aclDataType::ACL_FLOAT, &hn);
    CHECK_RET(ret == ACL_SUCCESS, return ret);
    aclTensor* hnArray[] = {hn};
    auto hnList = aclCreateTensorList(hnArray, sizeof(hnArray) / sizeof(hnArray[0]));

    ret = CreateAclTensor(hHostData, gateShape, &hDeviceAddr, aclDataType::ACL_FLOAT, &h);
    CHECK_RET(ret == ACL_SUCCESS, return ret);
    aclTensor* hArray[] = {h};
    auto hList = aclCreateTensorList(hArray, sizeof(hArray) / sizeof(hArray[0]));

    // 创建反向传播输出张量
    ret = CreateAclTensor(dxHostData, dxShape, &dxDeviceAddr, aclDataType::ACL_FLOAT, &dx);
    CHECK_RET(ret == ACL_SUCCESS, return ret);
    ret = CreateAclTensor(dhPrevHostData, dhPrevShape, &dhPrevDeviceAddr, aclDataType::ACL_FLOAT, &dhPrev);
    CHECK_RET(ret == ACL_SUCCESS, return ret);

    // 创建 dparams(dw_ih, dw_hh, db_ih, db_hh) aclTensorList
    ret = CreateAclTensor(dwiHostData, dwiShape, &dwiDeviceAddr, aclDataType::ACL_FLOAT, &dwi);
    CHECK_RET(ret == ACL_SUCCESS, return ret);
    ret = CreateAclTensor(dwhHostData, dwhShape, &dwhDeviceAddr, aclDataType::ACL_FLOAT, &dwh);
    CHECK_RET(ret == ACL_SUCCESS, return ret);
    ret = CreateAclTensor(dbiHostData, dbShape, &dbiDeviceAddr, aclDataType::ACL_FLOAT, &dbi);
    CHECK_RET(ret == ACL_SUCCESS, return ret);
    ret = CreateAclTensor(dbhHostData, dbShape, &dbhDeviceAddr, aclDataType::ACL_FLOAT, &dbh);
    CHECK_RET(ret == ACL_SUCCESS, return ret);
    aclTensor* dparamsArray[] = {dwi, dwh, dbi, dbh};
    auto dparamsList = aclCreateTensorList(dparamsArray, sizeof(dparamsArray) / sizeof(dparamsArray[0]));

    // 3. 调用CANN算子库API，需要修改为具体的Api名称
    uint64_t workspaceSize = 0;
    aclOpExecutor* executor = nullptr;
    // 调用aclnnGRUBackward第一段接口
    ret = aclnnGRUBackwardGetWorkspaceSize(x, paramsList, hxList, dy, dh, rList, zList, nList, hnList, hList, nullptr,
                                           hasBias, numLayers, bidirectional, batchFirst, dx, dhPrev, dparamsList,
                                           &workspaceSize, &executor);
    CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("aclnnGRUBackwardGetWorkspaceSize failed. ERROR: %d\n", ret); return ret);
    // 根据第一段接口计算出的workspaceSize申请device内存
    void* workspaceAddr = nullptr;
    if (workspaceSize > 0) {
        ret = aclrtMalloc(&workspaceAddr, workspaceSize, ACL_MEM_MALLOC_HUGE_FIRST);
        CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("allocate workspace failed. ERROR: %d\n", ret); return ret);
    }
    // 调用aclnnGRUBackward第二段接口
    ret = aclnnGRUBackward(workspaceAddr, workspaceSize, executor, stream);
    CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("aclnnGRUBackward failed. ERROR: %d\n", ret); return ret);

    // 4. （固定写法）同步等待任务执行结束
    ret = aclrtSynchronizeStream(stream);
    CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("aclrtSynchronizeStream failed. ERROR: %d\n", ret); return ret);

    // 5. 获取输出的值，将device侧内存上的结果拷贝至host侧，需要根据具体API的接口定义修改
    PrintOutResult("dx", dxShape, &dxDeviceAddr);
    PrintOutResult("dhPrev", dhPrevShape, &dhPrevDeviceAddr);
    PrintOutResult("dw_ih", dwiShape, &dwiDeviceAddr);
    PrintOutResult("dw_hh", dwhShape, &dwhDeviceAddr);
    PrintOutResult("db_ih", dbShape, &dbiDeviceAddr);
    PrintOutResult("db_hh", dbShape, &dbhDeviceAddr);

    // 6. 释放aclTensor和aclTensorList
    aclDestroyTensor(x);
    aclDestroyTensor(wi);
    aclDestroyTensor(wh);
    aclDestroyTensor(bi);
    aclDestroyTensor(bh);
    aclDestroyTensor(initH);
    aclDestroyTensor(dy);
    aclDestroyTensor(dh);
    aclDestroyTensor(r);
    aclDestroyTensor(z);
    aclDestroyTensor(n);
    aclDestroyTensor(hn);
    aclDestroyTensor(h);
    aclDestroyTensor(dx);
    aclDestroyTensor(dhPrev);
    aclDestroyTensor(dwi);
    aclDestroyTensor(dwh);
    aclDestroyTensor(dbi);
    aclDestroyTensor(dbh);

    aclDestroyTensorList(paramsList);
    aclDestroyTensorList(hxList);
    aclDestroyTensorList(rList);
    aclDestroyTensorList(zList);
    aclDestroyTensorList(nList);
    aclDestroyTensorList(hnList);
    aclDestroyTensorList(hList);
    aclDestroyTensorList(dparamsList);

    // 7. 释放device资源
    aclrtFree(xDeviceAddr);
    aclrtFree(wiDeviceAddr);
    aclrtFree(whDeviceAddr);
    aclrtFree(biDeviceAddr);
    aclrtFree(bhDeviceAddr);
    aclrtFree(initHDeviceAddr);
    aclrtFree(dyDeviceAddr);
    aclrtFree(dhDeviceAddr);
    aclrtFree(rDeviceAddr);
    aclrtFree(zDeviceAddr);
    aclrtFree(nDeviceAddr);
    aclrtFree(hnDeviceAddr);
    aclrtFree(hDeviceAddr);
    aclrtFree(dxDeviceAddr);
    aclrtFree(dhPrevDeviceAddr);
    aclrtFree(dwiDeviceAddr);
    aclrtFree(dwhDeviceAddr);
    aclrtFree(dbiDeviceAddr);
    aclrtFree(dbhDeviceAddr);
    if (workspaceSize > 0) {
        aclrtFree(workspaceAddr);
    }
    aclrtDestroyStream(stream);
    aclrtResetDevice(deviceId);
    aclFinalize();

    return 0;
}
