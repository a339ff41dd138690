"""The input/output layer: the command line, file sources, example data and Ray.

The public paths of these modules are :mod:`polars_fair.cli`,
:mod:`polars_fair.sources`, :mod:`polars_fair.datasets` and
:mod:`polars_fair.distributed`. They build on the public report specification
(:class:`polars_fair.ReportSpec`), never on the namespace's private methods.
"""
