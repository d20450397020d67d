# The simulator's counterpart of CANN's set_env.sh: `source` it and programs that look for a CANN
# toolkit (torch_npu, a framework's own build, the pages' examples) find the simulator's libraries
# under CANN's file names, through the same variables CANN's script sets.
# The toolkit is this script's directory: bash says where a sourced script is (BASH_SOURCE); a POSIX
# sh cannot, and takes the directory the build placed it in.
if [ -n "${BASH_SOURCE:-}" ]; then
  _aclsim_home="$(cd "$(dirname "${BASH_SOURCE}")" && pwd)"
else
  _aclsim_home="@ACLNN_SIM_TOOLKIT_DIR@"
fi
export ASCEND_HOME_PATH="${_aclsim_home}"
export ASCEND_TOOLKIT_HOME="${_aclsim_home}"
export ASCEND_OPP_PATH="${_aclsim_home}/opp"
export ASCEND_AICPU_PATH="${_aclsim_home}"
case ":${LD_LIBRARY_PATH:-}:" in
  *":${_aclsim_home}/lib64:"*) ;;
  *) export LD_LIBRARY_PATH="${_aclsim_home}/lib64${LD_LIBRARY_PATH:+:${LD_LIBRARY_PATH}}" ;;
esac
unset _aclsim_home
