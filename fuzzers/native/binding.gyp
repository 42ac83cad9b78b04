{
  "targets": [
    {
      "target_name": "ipcfuzz_model",
      "sources": ["addon.c", "model.c", "regexp.c"],
      "cflags": ["-std=gnu11", "-Wall", "-Wextra"],
      "libraries": ["-lm"]
    }
  ]
}
