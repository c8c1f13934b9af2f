"""kube-scheduler extender: wire types, snapshot sources and the gang plan behind the verbs."""
