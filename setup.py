"""Builds the compiled board core (analysis.go._board); everything else is plain Python."""

from setuptools import Extension, setup

setup(
    name="goweb",
    version="0.1.0",
    packages=[],
    ext_modules=[
        Extension(
            "analysis.go._board",
            sources=[
                "analysis/go/_cboard/board.c",
                "analysis/go/_cboard/ladder.c",
                "analysis/go/_cboard/planes.c",
                "analysis/go/_cboard/module.c",
            ],
            depends=[
                "analysis/go/_cboard/board.h",
                "analysis/go/_cboard/ladder.h",
                "analysis/go/_cboard/planes.h",
            ],
            extra_compile_args=["-O3", "-std=c99", "-Wall", "-Wextra", "-Wno-unused-parameter"],
        )
    ],
)
