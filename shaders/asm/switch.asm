// switch with fall-through between case labels: case 0 and case 1 share a block, default
// sits between cases and shares its block with case 5 and case 6, and a case ends with ret
// instead of break. (A case with code falling into the next one is not allowed by D3D11;
// switch_fallthrough_code.asm has one.)
cs_5_0
dcl_globalFlags refactoringAllowed
dcl_uav_typed_buffer (uint,uint,uint,uint) u0
dcl_input vThreadID.x
dcl_temps 2
dcl_thread_group 64, 1, 1
and r0.x, vThreadID.x, l(7)
mov r1.x, l(0)
switch r0.x
  case l(0)
  case l(1)
  iadd r1.x, r1.x, l(10)
  break
  case l(2)
  iadd r1.x, r1.x, l(20)
  break
  default
  case l(5)
  case l(6)
  iadd r1.x, r1.x, l(1000)
  break
  case l(7)
  store_uav_typed u0.xyzw, vThreadID.xxxx, l(7, 7, 7, 7)
  ret
endswitch
store_uav_typed u0.xyzw, vThreadID.xxxx, r1.xxxx
ret
