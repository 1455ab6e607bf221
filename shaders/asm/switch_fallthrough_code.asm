// Cases with code that fall into the next label without a break: case 0 into case 1 and
// default into case 2, with a later case that returns. The DirectX docs say D3D11 does not
// allow such fall-through and fxc never emits it, so this tests how a translator treats
// bytecode outside the rules: it should handle it or reject it, never emit invalid SPIR-V.
cs_5_0
dcl_uav_typed_buffer (uint,uint,uint,uint) u0
dcl_input vThreadID.x
dcl_temps 2
dcl_thread_group 64, 1, 1
and r0.x, vThreadID.x, l(3)
mov r1.x, l(0)
switch r0.x
  case l(0)
  iadd r1.x, r1.x, l(1)
  case l(1)
  iadd r1.x, r1.x, l(10)
  break
  default
  iadd r1.x, r1.x, l(100)
  case l(2)
  iadd r1.x, r1.x, l(1000)
  break
  case l(7)
  store_uav_typed u0.xyzw, vThreadID.xxxx, l(7, 7, 7, 7)
  ret
endswitch
store_uav_typed u0.xyzw, vThreadID.xxxx, r1.xxxx
ret
