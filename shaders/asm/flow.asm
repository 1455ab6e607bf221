// Structured flow and subroutines: nested loops with breakc/continuec, if/else, retc,
// discard, call/callc into labels after the main program's ret.
ps_5_0
.input SV_Position 0 v0 float POS
.input TEXCOORD 0 v1.xy float
.output SV_Target 0 o0 float
dcl_input_ps linear v1.xy
dcl_output o0.xyzw
dcl_temps 4
mov r0.xyzw, l(0, 0, 0, 0)
mov r1.x, l(0)
loop
  ige r1.y, r1.x, l(8)
  breakc_nz r1.y
  and r1.z, r1.x, l(1)
  if_nz r1.z
    iadd r1.x, r1.x, l(1)
    continue
  else
    mov r2.x, l(0)
    loop
      uge r2.y, r2.x, r1.x
      breakc_nz r2.y
      call label0
      iadd r2.x, r2.x, l(1)
    endloop
  endif
  iadd r1.x, r1.x, l(1)
  continuec_z r1.y
endloop
lt r3.x, v1.x, l(0.0)
discard_nz r3.x
ge r3.y, v1.y, l(0.5)
callc_nz r3.y, label1
retc_z r3.y
mov o0.xyzw, r0.xyzw
ret
label label0
add r0.x, r0.x, l(1.0)
ret
label label1
mov o0.xyzw, l(1.0, 0, 0, 1.0)
ret
