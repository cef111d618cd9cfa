package kernel

import (
	"bytes"
	"image"
	"image/color"
	"image/png"
)

// Logo returns a size×size PNG of weft's mark: a woven grid, warp threads
// in Go blue over weft threads in a darker blue, on transparency.
func Logo(size int) []byte {
	if size <= 0 {
		panic("kernel: logo size must be positive")
	}
	img := image.NewNRGBA(image.Rect(0, 0, size, size))
	warp := color.NRGBA{0x00, 0xAD, 0xD8, 0xFF} // Go gopher blue
	weft := color.NRGBA{0x00, 0x5F, 0x87, 0xFF}
	band := max(size/8, 1) // thread width; 8 bands per side
	for y := 0; y < size; y++ {
		for x := 0; x < size; x++ {
			col, row := x/band, y/band
			onWarp, onWeft := col%2 == 0, row%2 == 0
			switch {
			case onWarp && onWeft:
				// Alternate which thread is on top: that is the weave.
				if (col/2+row/2)%2 == 0 {
					img.SetNRGBA(x, y, warp)
				} else {
					img.SetNRGBA(x, y, weft)
				}
			case onWarp:
				img.SetNRGBA(x, y, warp)
			case onWeft:
				img.SetNRGBA(x, y, weft)
			}
		}
	}
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		panic("kernel: encode logo: " + err.Error())
	}
	return buf.Bytes()
}
