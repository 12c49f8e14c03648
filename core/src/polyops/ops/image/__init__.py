"""Image ops (``keras.ops.image``; not flat in `polyops.ops`, as in Keras).

* `basic`: rgb_to_grayscale, rgb_to_hsv, hsv_to_rgb, pad_images, crop_images,
  extract_patches, extract_patches_3d, reconstruct_patches, gaussian_blur,
  sobel_edges, ssim;
* `sampling`: resize, scale_and_translate, affine_transform, perspective_transform,
  map_coordinates, elastic_transform.

Images are batched or not (rank 3 or 4; rank 4 or 5 for the 3-D ops), with
``data_format`` "channels_last" (default: `polyops.config.image_data_format()`)
or "channels_first".  Ops are declared as in `polyops.ops.numpy` (see its
docstring).
"""

from .._lazy import attach as _attach

_attach(globals())  # names load on first use (see polyops.ops._lazy)
