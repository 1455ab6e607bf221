// ALU coverage: float, integer, bit and conversion instructions, source modifiers,
// saturate, precise, immediates (floats bit-exact, hex bits), movc/swapc, and the
// two-destination forms with a null destination.
ps_5_0
.input SV_Position 0 v0 float POS
.input TEXCOORD 0 v1.xy float
.input COLOR 0 v2 float
.output SV_Target 0 o0 float
.output SV_Target 1 o1 uint
dcl_globalFlags refactoringAllowed
dcl_constantbuffer cb0[4], immediateIndexed
dcl_input_ps linear v1.xy
dcl_input_ps linear v2.xyzw
dcl_output o0.xyzw
dcl_output o1.xyzw
dcl_temps 4
mad r0.xyzw, v2.xyzw, cb0[0].xyzw, cb0[1].xyzw
mul_sat r0.xy, -v1.xyxx, |r0.zwzz|
add [precise] r1.xyzw, -|r0.xyzw|, l(0.1, -2.5, 3.4028235e38, 1e-7)
dp4 r1.x, r1.xyzw, cb0[2].xyzw
dp3 r1.y, r0.xyzx, r0.xyzx
dp2 r1.z, v1.xyxx, v1.xyxx
rsq r1.w, r1.y
sqrt r2.x, |r1.x|
rcp r2.y, r1.z
exp r2.z, r1.w
log r2.w, r2.x
frc r2.xy, r2.xyxx
round_ne r3.x, v1.x
round_ni r3.y, v1.y
round_pi r3.z, v1.x
round_z r3.w, v1.y
sincos r0.x, null, r3.x
sincos null, r0.y, r3.y
min r0.z, r3.z, l(1.0)
max r0.w, r3.w, l(-1.0)
div r0.xy, r0.xyxx, r0.zwzz
ftoi r1.x, r0.x
ftou r1.y, r0.y
itof r1.z, r1.x
utof r1.w, r1.y
iadd r2.x, r1.x, l(-1)
imul null, r2.y, r1.x, l(3)
imad r2.z, r1.x, l(5), l(7)
imax r2.w, r2.x, l(-100)
imin r2.x, r2.x, l(100)
ineg r2.y, r2.y
ishl r2.z, r2.z, l(2)
ishr r2.w, r2.w, l(1)
udiv r3.x, r3.y, r1.y, l(3)
umul null, r3.z, r1.y, l(0x10000000)
umad r3.w, r1.y, l(2), l(1)
umax r3.x, r3.x, l(4)
umin r3.y, r3.y, l(9)
ushr r3.z, r3.z, l(3)
uaddc r0.x, r0.y, r1.y, l(0xffffffff)
usubb r0.z, r0.w, r1.y, l(1)
and r1.x, r1.x, l(255)
or r1.y, r1.y, l(0x80000000)
xor r1.z, r1.z, r1.w
not r1.w, r1.w
countbits r2.x, r1.x
firstbit_hi r2.y, r1.y
firstbit_lo r2.z, r1.z
firstbit_shi r2.w, r2.w
bfrev r3.x, r3.x
ubfe r3.y, l(4), l(8), r1.x
ibfe r3.z, l(4), l(8), r1.x
bfi r3.w, l(4), l(8), r1.y, r1.z
f32tof16 r0.x, v1.x
f16tof32 r0.y, r0.x
eq r0.z, v1.x, v1.y
ne r0.w, v1.x, l(0.5)
lt r1.x, v1.x, v1.y
ge r1.y, v1.x, v1.y
ieq r1.z, r2.x, l(0)
ine r1.w, r2.x, l(0)
ilt r2.x, r2.y, r2.z
ige r2.y, r2.y, r2.z
ult r2.z, r3.x, r3.y
uge r2.w, r3.x, r3.y
movc r0.xyzw, r0.zzzz, v2.xyzw, l(1.0, 0, 0x7fc00000, 0x80000000)
swapc r1.xy, r2.xy, r0.xxxx, r3.xyxx, r3.zwzz
deriv_rtx r3.x, v1.x
deriv_rty r3.y, v1.y
deriv_rtx_coarse r3.z, v1.x
deriv_rty_fine r3.w, v1.y
mov o0.xyzw, r0.xyzw
mov o1.xyzw, r2.xyzw
ret
