"""Image ops (``keras.ops.image``; not flat in `polyops.ops`, as in Keras).

* `basic`: rgb_to_grayscale, rgb_to_hsv, hsv_to_rgb, pad_images, crop_images,
  extract_patches, extract_patches_3d, reconstruct_patches, gaussian_blur,
  sobel_edges, ssim;
* `sampling`: resize, scale_and_translate, affine_transform, perspective_transform,
  map_coordinates, elastic_transform.

Images are batched or not (rank 3 or 4; rank 4 or 5 for the 3-D ops), with
``data_format`` "channels_last" (default: `polyops.config.image_data_format()`)
or "channels_first".  Ops are declared as in `polyops.ops.numpy` (see its
docstring).  The import order below fixes the op indices.
"""

from . import basic, sampling  # noqa: F401
from .basic import *  # noqa: F401,F403
from .sampling import *  # noqa: F401,F403

__all__: list[str] = []
__all__ += basic.__all__
__all__ += sampling.__all__
