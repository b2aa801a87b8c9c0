# The API reference of the Python module, built from its numpy-style docstrings by Sphinx's
# autodoc and napoleon (Debian's python3-sphinx): ctest python_api_reference builds it with
# warnings as errors (-W), so a docstring that does not render fails make test.
#
#     PYTHONPATH=build/python /usr/bin/python3 -m sphinx -W -b html docs/api build/api
project = "logz"
extensions = ["sphinx.ext.autodoc", "sphinx.ext.napoleon"]
napoleon_google_docstring = False
napoleon_numpy_docstring = True
napoleon_use_ivar = True  # Attributes sections as fields: a namedtuple's fields are not described twice
autodoc_member_order = "bysource"
html_theme = "alabaster"
exclude_patterns = ["_build"]
