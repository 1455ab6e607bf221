//! vk-runner: runs translated shaders on a Vulkan device and checks their results.
