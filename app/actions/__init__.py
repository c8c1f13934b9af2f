"""The actions, one module each; ``registry`` maps the names users write to them.

Kept free of imports so that importing one action module (the eviction search imports
``allocate``) never loads the others first."""
