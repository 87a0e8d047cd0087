#version 450

// Scales the frame slot's scene image (the scene drawn at a fraction of the target's pixels, SceneRenderer's render
// scale) up to the whole target with the sampler's bilinear filter, before the HUD. The image has the target's
// format, so its texels are already what the target stores: nothing is encoded here.
layout(set = 0, binding = 4) uniform sampler2D scene_image;
layout(location = 0) in vec2 v_uv;
layout(location = 0) out vec4 out_color;

void main() {
  out_color = texture(scene_image, v_uv);
}
