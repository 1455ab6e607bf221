// Geometry shader with two output streams (point lists, as D3D11 requires for several
// streams), instancing, and emit/cut per stream.
gs_5_0
.input SV_Position 0 v0 float POS
.input COLOR 0 v1 float
.output SV_Position 0 o0 float POS
.output COLOR 0 o1 float
.output TEXCOORD 0 o0.xy float stream=1
dcl_globalFlags refactoringAllowed
dcl_input_siv v[3][0].xyzw, position
dcl_input v[3][1].xyzw
dcl_temps 1
dcl_inputprimitive triangle
dcl_stream m0
dcl_outputtopology pointlist
dcl_output_siv o0.xyzw, position
dcl_output o1.xyzw
dcl_stream m1
dcl_outputtopology pointlist
dcl_output o0.xy
dcl_maxout 4
dcl_gsinstances 2
dcl_input vGSInstanceID
mov r0.x, l(0)
loop
  uge r0.y, r0.x, l(3)
  breakc_nz r0.y
  mov o0.xyzw, v[r0.x + 0][0].xyzw
  mov o1.xyzw, v[r0.x + 0][1].xyzw
  emit_stream m0
  iadd r0.x, r0.x, l(1)
endloop
cut_stream m0
utof o0.x, vGSInstanceID.x
mov o0.y, l(0)
emit_then_cut_stream m1
ret
