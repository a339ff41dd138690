"""The plan layer: what a method reduces and how it derives its result.

:class:`~polars_fair.plans._plan.Plan` is one result as a value (its reduction and
the derivation from the reduction's table); :mod:`polars_fair.plans._audit` resolves
a call's inputs (:class:`~polars_fair.plans._audit.Audit`) and builds the shared
derivations (criteria, disparities) over the statistics table. Nothing here reads
data or decides whether to collect: the namespace's one runner does.
"""
