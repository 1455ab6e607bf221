// Hull shader phases: declarations, a control point phase, two fork phases (one with
// several instances indexing its outputs by vForkInstanceID) and a join phase.
hs_5_0
.input SV_Position 0 v0 float POS
.input TEXCOORD 0 v1.xy float
.output SV_Position 0 o0 float POS
.output TEXCOORD 0 o1.xy float
.patch SV_TessFactor 0 o0.x float TRIEDGE
.patch SV_TessFactor 1 o1.x float TRIEDGE
.patch SV_TessFactor 2 o2.x float TRIEDGE
.patch SV_InsideTessFactor 0 o3.x float TRIINT
.patch LEVEL 0 o4.x float
hs_decls
dcl_input_control_point_count 3
dcl_output_control_point_count 3
dcl_tessellator_domain domain_tri
dcl_tessellator_partitioning partitioning_fractional_odd
dcl_tessellator_output_primitive output_triangle_cw
dcl_hs_max_tessfactor l(64.0)
dcl_globalFlags refactoringAllowed
dcl_constantbuffer cb0[1], immediateIndexed
hs_control_point_phase
dcl_input vOutputControlPointID
dcl_input v[3][0].xyzw
dcl_input v[3][1].xy
dcl_output o0.xyzw
dcl_output o1.xy
mov o0.xyzw, v[vOutputControlPointID + 0][0].xyzw
mov o1.xy, v[vOutputControlPointID + 0][1].xyxx
ret
hs_fork_phase
dcl_hs_fork_phase_instance_count 3
dcl_input vForkInstanceID
dcl_output_siv o0.x, finalTriUeq0EdgeTessFactor
dcl_output_siv o1.x, finalTriVeq0EdgeTessFactor
dcl_output_siv o2.x, finalTriWeq0EdgeTessFactor
dcl_temps 1
dcl_indexrange o0.x 3
mov r0.x, vForkInstanceID.x
mov o[r0.x + 0].x, cb0[0].x
ret
hs_fork_phase
dcl_output_siv o3.x, finalTriInsideTessFactor
mov o3.x, cb0[0].y
ret
hs_join_phase
dcl_output o4.x
add o4.x, vpc0.x, vpc3.x
ret
