CREATE TABLE IF NOT EXISTS test (
  build_commit TEXT,
  build_number INTEGER,
  cpu_info TEXT,
  gpu_info TEXT,
  backends TEXT,
  model_filename TEXT,
  model_type TEXT,
  model_size INTEGER,
  model_n_params INTEGER,
  n_batch INTEGER,
  n_ubatch INTEGER,
  n_threads INTEGER,
  cpu_mask TEXT,
  cpu_strict INTEGER,
  poll INTEGER,
  type_k TEXT,
  type_v TEXT,
  n_gpu_layers INTEGER,
  n_cpu_moe INTEGER,
  split_mode TEXT,
  main_gpu INTEGER,
  no_kv_offload INTEGER,
  flash_attn INTEGER,
  devices TEXT,
  tensor_split TEXT,
  tensor_buft_overrides TEXT,
  use_mmap INTEGER,
  embeddings INTEGER,
  no_op_offload INTEGER,
  n_prompt INTEGER,
  n_gen INTEGER,
  n_depth INTEGER,
  test_time TEXT,
  avg_ns INTEGER,
  stddev_ns INTEGER,
  avg_ts REAL,
  stddev_ts REAL
);

INSERT INTO test (build_commit, build_number, cpu_info, gpu_info, backends, model_filename, model_type, model_size, model_n_params, n_batch, n_ubatch, n_threads, cpu_mask, cpu_strict, poll, type_k, type_v, n_gpu_layers, n_cpu_moe, split_mode, main_gpu, no_kv_offload, flash_attn, devices, tensor_split, tensor_buft_overrides, use_mmap, embeddings, no_op_offload, n_prompt, n_gen, n_depth, test_time, avg_ns, stddev_ns, avg_ts, stddev_ts) VALUES ('8cf427ff', '5163', 'AMD Ryzen 9 7950X 16-Core Processor', 'NVIDIA GeForce RTX 4080', 'CUDA', '/models/Qwen3-8B-Q4_K_M.gguf', 'qwen3 8B Q4_K - Medium', '5027783488', '8190735360', '2048', '512', '16', '0x0', '0', '50', 'f16', 'f16', '99', '0', 'layer', '0', '0', '1', 'auto', '0.00', 'none', '1', '0', '0', '512', '0', '0', '2026-11-30T10:00:01Z', '61214100', '218164', '8364.156940', '29.835365');
INSERT INTO test (build_commit, build_number, cpu_info, gpu_info, backends, model_filename, model_type, model_size, model_n_params, n_batch, n_ubatch, n_threads, cpu_mask, cpu_strict, poll, type_k, type_v, n_gpu_layers, n_cpu_moe, split_mode, main_gpu, no_kv_offload, flash_attn, devices, tensor_split, tensor_buft_overrides, use_mmap, embeddings, no_op_offload, n_prompt, n_gen, n_depth, test_time, avg_ns, stddev_ns, avg_ts, stddev_ts) VALUES ('8cf427ff', '5163', 'AMD Ryzen 9 7950X 16-Core Processor', 'NVIDIA GeForce RTX 4080', 'CUDA', '/models/Qwen3-8B-Q4_K_M.gguf', 'qwen3 8B Q4_K - Medium', '5027783488', '8190735360', '2048', '512', '16', '0x0', '0', '50', 'f16', 'f16', '99', '0', 'layer', '0', '0', '1', 'auto', '0.00', 'none', '1', '0', '0', '0', '128', '0', '2026-11-30T10:00:05Z', '1012551400', '2783511', '126.413972', '0.347409');
INSERT INTO test (build_commit, build_number, cpu_info, gpu_info, backends, model_filename, model_type, model_size, model_n_params, n_batch, n_ubatch, n_threads, cpu_mask, cpu_strict, poll, type_k, type_v, n_gpu_layers, n_cpu_moe, split_mode, main_gpu, no_kv_offload, flash_attn, devices, tensor_split, tensor_buft_overrides, use_mmap, embeddings, no_op_offload, n_prompt, n_gen, n_depth, test_time, avg_ns, stddev_ns, avg_ts, stddev_ts) VALUES ('8cf427ff', '5163', 'AMD Ryzen 9 7950X 16-Core Processor', 'NVIDIA GeForce RTX 4080', 'CUDA', '/models/Qwen3-8B-Q4_K_M.gguf', 'qwen3 8B Q4_K - Medium', '5027783488', '8190735360', '2048', '512', '16', '0x0', '0', '50', 'f16', 'f16', '99', '0', 'layer', '0', '0', '1', 'auto', '0.00', 'none', '1', '0', '0', '512', '0', '4096', '2026-11-30T10:00:09Z', '78190066', '240337', '6548.187551', '20.103896');
INSERT INTO test (build_commit, build_number, cpu_info, gpu_info, backends, model_filename, model_type, model_size, model_n_params, n_batch, n_ubatch, n_threads, cpu_mask, cpu_strict, poll, type_k, type_v, n_gpu_layers, n_cpu_moe, split_mode, main_gpu, no_kv_offload, flash_attn, devices, tensor_split, tensor_buft_overrides, use_mmap, embeddings, no_op_offload, n_prompt, n_gen, n_depth, test_time, avg_ns, stddev_ns, avg_ts, stddev_ts) VALUES ('8cf427ff', '5163', 'AMD Ryzen 9 7950X 16-Core Processor', 'NVIDIA GeForce RTX 4080', 'CUDA', '/models/Qwen3-8B-Q4_K_M.gguf', 'qwen3 8B Q4_K - Medium', '5027783488', '8190735360', '2048', '512', '16', '0x0', '0', '50', 'f16', 'f16', '99', '0', 'layer', '0', '0', '1', 'auto', '0.00', 'none', '1', '0', '0', '0', '128', '4096', '2026-11-30T10:00:14Z', '1103826733', '2795677', '115.960724', '0.293551');
