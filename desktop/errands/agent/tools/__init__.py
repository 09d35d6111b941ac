"""The tools a model may call. Names and arguments are a contract with the model: keep them
stable. One module per family; :mod:`.registry` lists them with their effect classes."""
