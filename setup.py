"""Build step of the papcoll Python package (docs/python.md).

Runs CMake on this repository to build the shared library libpapcoll (only that target, no tests
or tools) against the MPI that `mpicc` belongs to, and copies it into the package as
papcoll/_lib/libpapcoll.so, which python/papcoll/_capi.py loads with ctypes. Metadata is in
pyproject.toml.

Environment:
  PAPCOLL_PY_BUILD_DIR   where setuptools and CMake build (default: build-py/ in the repository;
                         the CMake build dir build-py/cmake is reused, so reinstalling is quick)
  PAPCOLL_CMAKE_BUILD_DIR  an existing CMake build of this repository to take libpapcoll from
                         (only its target papcoll is brought up to date; scripts/test_python.sh
                         passes build/ when scripts/build.sh has configured it)
  PAPCOLL_CMAKE_ARGS     extra CMake arguments (split on spaces)
  MPICC                  the MPI compiler wrapper whose MPI is used (default: mpicc on PATH)
"""
import os
import shutil
import subprocess

from setuptools import Distribution, setup
from setuptools.command.build_py import build_py

ROOT = os.path.dirname(os.path.abspath(__file__))
BUILD_DIR = os.path.abspath(os.environ.get("PAPCOLL_PY_BUILD_DIR", os.path.join(ROOT, "build-py")))


def _build_libpapcoll():
    cmake_dir = os.environ.get("PAPCOLL_CMAKE_BUILD_DIR") or os.path.join(BUILD_DIR, "cmake")
    mpicc = shutil.which(os.environ.get("MPICC", "mpicc"))
    if mpicc is None:
        raise RuntimeError("papcoll: mpicc not found on PATH (install an MPI, e.g. libopenmpi-dev, "
                           "or set MPICC)")
    if shutil.which("cmake") is None:
        raise RuntimeError("papcoll: cmake not found on PATH")
    if not os.path.exists(os.path.join(cmake_dir, "CMakeCache.txt")):
        cmd = ["cmake", "-S", ROOT, "-B", cmake_dir, "-DCMAKE_BUILD_TYPE=Release",
               "-DPAPCOLL_BUILD_TESTS=OFF", "-DMPI_C_COMPILER=" + mpicc]
        if shutil.which("ninja"):
            cmd += ["-G", "Ninja"]
        cmd += os.environ.get("PAPCOLL_CMAKE_ARGS", "").split()
        subprocess.check_call(cmd)
    subprocess.check_call(["cmake", "--build", cmake_dir, "--target", "papcoll"])
    lib = os.path.join(cmake_dir, "lib", "libpapcoll.so")
    if not os.path.exists(lib):
        raise RuntimeError("papcoll: CMake did not produce " + lib)
    return os.path.realpath(lib)


class BuildPyWithLibrary(build_py):
    """build_py, then the shared library into <build_lib>/papcoll/_lib/."""

    def run(self):
        super().run()
        lib = _build_libpapcoll()
        dest = os.path.join(self.build_lib, "papcoll", "_lib")
        os.makedirs(dest, exist_ok=True)
        shutil.copyfile(lib, os.path.join(dest, "libpapcoll.so"))


class BinaryDistribution(Distribution):
    """The wheel holds a platform-specific shared library: not a pure-Python wheel."""

    def has_ext_modules(self):
        return True


os.makedirs(BUILD_DIR, exist_ok=True)
setup(
    cmdclass={"build_py": BuildPyWithLibrary},
    distclass=BinaryDistribution,
    options={"build": {"build_base": os.path.join(BUILD_DIR, "setuptools")},
             # keep papcoll.egg-info out of the source tree
             "egg_info": {"egg_base": BUILD_DIR}},
)
